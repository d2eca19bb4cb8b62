import {
  MAX_STATS_DAYS,
  Message,
  MessageAttachmentParams,
  MessageContent,
  MessageList,
  MessageListQuery,
  MessageParams,
  MessageStats,
  MessageStatsQuery,
  normaliseEmail,
  ProjectIdParam,
} from '@postbus/contracts';
import { NotFoundError, UnprocessableError } from '@postbus/errors';
import type { MailerClient } from '../../clients/mailer-client';
import type { MessageReads, ReadCaller } from '../../domain/message-reads';
import { downloadHeaders } from '../../domain/attachment-download';
import type { AuthenticatedClient } from '../auth';
import { defineRoute, type RouteSpec } from '../route';

export interface MessageRouteDeps {
  mailerApi: MailerClient;
  reads: MessageReads;
}

const MAILER_DOWN = { 503: { description: 'The mailer service did not answer (see Retry-After)' } };

/** A test key reads only test messages: another message is, to it, one that does not exist. */
const readerOf = (client: AuthenticatedClient): ReadCaller => ({ test: client.scope === 'test' });

/** The message log, read from the mailer (the owner of that data): any key, or an admin session. */
export function messageRoutes({ mailerApi, reads }: MessageRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages',
      tenant: { project: 'projectId' },
      operationId: 'listMessages',
      summary:
        'List the messages of a project, newest first, with their status and timeline; filter by recipient, user_id, email_key, tag, status and acceptance time (a page may hold fewer than limit with a next_cursor: read on)',
      tag: 'Messages',
      scope: 'full',
      testKeysMayCall: true,
      params: ProjectIdParam,
      query: MessageListQuery,
      responses: {
        200: { description: 'One page of messages; pass next_cursor as cursor for the next one', schema: MessageList },
        ...MAILER_DOWN,
      },
      handle: async ({ params, query, client }) => {
        // A test key reads only test messages, whatever it asked for.
        const scoped = client.scope === 'test' ? { ...query, test: true } : query;
        const filter = scoped.email === undefined ? scoped : { ...scoped, email: normaliseEmail(scoped.email) };
        if (filter.from !== undefined && filter.to !== undefined && Date.parse(filter.from) > Date.parse(filter.to))
          throw new UnprocessableError('invalid-range', 'to must not be before from.');
        return { status: 200, body: await mailerApi.listMessages(params.projectId, filter) };
      },
    }),
    // Before getMessage, whose :messageId would take "stats".
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages/stats',
      tenant: { project: 'projectId' },
      operationId: 'getMessageStats',
      summary: 'Message counts by status per UTC day (from rollups kept as messages change status)',
      tag: 'Messages',
      scope: 'full',
      params: ProjectIdParam,
      query: MessageStatsQuery,
      responses: { 200: { description: 'Every day of the range, oldest first, with its counts', schema: MessageStats }, ...MAILER_DOWN },
      handle: async ({ params, query }) => {
        const days = (Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 + 1;
        if (!(days >= 1)) throw new UnprocessableError('invalid-range', 'to must not be before from.');
        if (days > MAX_STATS_DAYS) throw new UnprocessableError('invalid-range', `At most ${MAX_STATS_DAYS} days at once.`);
        return { status: 200, body: await mailerApi.stats(params.projectId, query) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages/:messageId',
      tenant: { project: 'projectId' },
      operationId: 'getMessage',
      summary: 'Read one message with its status and event timeline',
      tag: 'Messages',
      scope: 'full',
      testKeysMayCall: true,
      params: MessageParams,
      responses: { 200: { description: 'The message', schema: Message }, ...MAILER_DOWN },
      handle: async ({ params, client }) => {
        const found = await reads.read(readerOf(client), params.projectId, params.messageId);
        if (!found) throw new NotFoundError('No such message in this project.');
        return { status: 200, body: found };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages/:messageId/content',
      tenant: { project: 'projectId' },
      operationId: 'getMessageContent',
      summary:
        "Read a message's email as rendered: subject, HTML (before tracking, cut at 256 KB with truncated set) and text; a 404 for a message not rendered (still queued, suppressed, or failed before rendering) says so in its detail",
      tag: 'Messages',
      scope: 'full',
      testKeysMayCall: true,
      params: MessageParams,
      responses: { 200: { description: 'The rendered email', schema: MessageContent }, ...MAILER_DOWN },
      handle: async ({ params, client }) => {
        const content = await reads.content(readerOf(client), params.projectId, params.messageId);
        if (content === undefined) throw new NotFoundError('No such message in this project.');
        if (!content)
          throw new NotFoundError(
            'This message has no rendered email: it is still queued, or it was suppressed or failed before it was rendered (nothing was sent).',
          );
        return { status: 200, body: content };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/messages/:messageId/attachments/:index',
      tenant: { project: 'projectId' },
      operationId: 'getMessageAttachment',
      summary:
        "Download one of a message's attachments, by its place in the message's attachments: the bytes the send gave, as a file (Content-Disposition: attachment with its name; its type when a browser shows it as data, else application/octet-stream); a 404 once it was erased with the person or purged with the message",
      tag: 'Messages',
      scope: 'full',
      testKeysMayCall: true,
      params: MessageAttachmentParams,
      responses: {
        200: {
          description: 'The file, byte for byte as it was sent',
          mediaType: '*/*',
          headers: {
            'Content-Disposition': `attachment; filename="<ASCII name>"; filename*=UTF-8''<the file's name, percent-encoded>`,
            'X-Content-Type-Options': 'nosniff',
          },
        },
        ...MAILER_DOWN,
      },
      handle: async ({ params, client }) => {
        const message = await reads.recorded(readerOf(client), params.projectId, params.messageId);
        if (!message) throw new NotFoundError('No such message in this project.');
        // Read defensively: a message stored before attachments existed may have no list.
        const listedFiles = message.attachments ?? [];
        const listed = listedFiles[params.index];
        if (!listed)
          throw new NotFoundError(
            `This message has ${listedFiles.length} attachment${listedFiles.length === 1 ? '' : 's'}: ${params.index} is none of them (the first is 0).`,
          );
        const file = await mailerApi.attachment(params.projectId, params.messageId, params.index);
        if (!file)
          throw new NotFoundError(
            'The content of this attachment is no longer stored: it was erased with the person, or purged with its message (MESSAGE_RETENTION_DAYS).',
          );
        return { status: 200, bytes: file.bytes, headers: downloadHeaders(listed, file.bytes.length) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/messages/:messageId/cancel',
      tenant: { project: 'projectId' },
      operationId: 'cancelMessage',
      summary:
        'Cancel a scheduled message (one sent with send_at) before its time: it becomes canceled, with a message.canceled webhook, and is never sent; a 409 for a message already sent or being sent',
      tag: 'Messages',
      // Whoever may schedule a send may take it back: an sdk key sends, so it cancels too.
      scope: 'sdk',
      params: MessageParams,
      responses: {
        200: { description: 'The message, canceled (cancelling it again answers the same)', schema: Message },
        409: { description: 'The message was sent, is being sent, or was never scheduled' },
        ...MAILER_DOWN,
      },
      handle: async ({ params }) => {
        return { status: 200, body: await reads.cancel(params.projectId, params.messageId) };
      },
    }),
  ];
}
