import type { RequestHandler } from 'express';
import {
  InternalMessageContent,
  InternalMessageParams,
  InternalProjectParams,
  MAX_STATS_DAYS,
  Message,
  MessageList,
  MessageListQuery,
  MessageStats,
  MessageStatsQuery,
  normaliseEmail,
  PAGE_LIMIT,
  SuppressionList,
  SuppressionListQuery,
} from '@postbus/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@postbus/errors';
import { decodeCursor, defineRoute, encodeCursor, isSequence, serveRoutes } from '@postbus/http';
import type { MessageLog } from '../domain/message-log';
import type { ScheduledSends } from '../domain/scheduled-sends';
import type { StatusRollups } from '../model/rollup.repository';
import type { Suppressions } from '../model/suppression.repository';

const NO_MESSAGE = { description: 'No such message in this project' };

/** The message log and the suppression list the gateway proxies to; the gateway has authenticated the client and checked the project. */
export function internalApi(
  log: MessageLog,
  rollups: StatusRollups,
  suppressions: Suppressions,
  scheduled: ScheduledSends,
): RequestHandler {
  return serveRoutes([
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/suppressions',
      params: InternalProjectParams,
      query: SuppressionListQuery,
      responses: { 200: { description: 'One page of suppressions, newest first', schema: SuppressionList } },
      handle: async ({ params, query }) => {
        const filters = { email: query.email && normaliseEmail(query.email), reason: query.reason };
        const page = await suppressions.page(params.projectId, {
          ...(filters.email ? { email: filters.email } : {}),
          ...(filters.reason ? { reason: filters.reason } : {}),
          limit: query.limit ?? PAGE_LIMIT.default,
          ...(query.cursor ? { cursor: decodeCursor(query.cursor, filters, isSequence) } : {}),
        });
        return { status: 200, body: { data: page.data, next_cursor: page.next === null ? null : encodeCursor(page.next, filters) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/messages',
      params: InternalProjectParams,
      query: MessageListQuery,
      responses: { 200: { description: 'One page of messages, newest first', schema: MessageList } },
      handle: async ({ params, query }) => {
        const { email, user_id: userId, email_key: emailKey, tag, status, from, to, test } = query;
        const filters = {
          email: email && normaliseEmail(email),
          user_id: userId,
          email_key: emailKey,
          tag,
          status,
          from,
          to,
          test: test === true || undefined,
        };
        const page = await log.page({
          projectId: params.projectId,
          ...(filters.email ? { email: filters.email } : {}),
          ...(userId ? { userId } : {}),
          ...(emailKey ? { emailKey } : {}),
          ...(tag ? { tag } : {}),
          ...(status ? { status } : {}),
          ...(test ? { test } : {}),
          ...(from ? { from: new Date(from) } : {}),
          ...(to ? { to: new Date(to) } : {}),
          limit: query.limit ?? PAGE_LIMIT.default,
          ...(query.cursor ? { before: decodeCursor(query.cursor, filters, isSequence) } : {}),
        });
        return { status: 200, body: { data: page.data, next_cursor: page.next === null ? null : encodeCursor(page.next, filters) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/messages/stats',
      params: InternalProjectParams,
      query: MessageStatsQuery,
      responses: { 200: { description: 'Counts by status per day', schema: MessageStats } },
      handle: async ({ params, query: { from, to } }) => {
        const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
        if (days < 1) throw new ValidationError('to must not be before from.');
        if (days > MAX_STATS_DAYS) throw new ValidationError(`At most ${MAX_STATS_DAYS} days at once.`);
        return { status: 200, body: { data: await rollups.days(params.projectId, from, to) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/messages/:messageId/content',
      params: InternalMessageParams,
      responses: { 200: { description: 'The email as rendered, or null', schema: InternalMessageContent }, 404: NO_MESSAGE },
      handle: async ({ params }) => {
        const found = await log.content(params.projectId, params.messageId);
        if (!found) throw new NotFoundError('No such message in this project.');
        return { status: 200, body: found };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/messages/:messageId',
      params: InternalMessageParams,
      responses: { 200: { description: 'The message and its timeline', schema: Message }, 404: NO_MESSAGE },
      handle: async ({ params }) => {
        const message = await log.message(params.projectId, params.messageId);
        if (!message) throw new NotFoundError('No such message in this project.');
        return { status: 200, body: message };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/internal/projects/:projectId/messages/:messageId/cancel',
      params: InternalMessageParams,
      responses: {
        200: { description: 'The message, canceled', schema: Message },
        404: NO_MESSAGE,
        409: { description: 'Sent, being sent, or never scheduled' },
      },
      handle: async ({ params }) => {
        const outcome = await scheduled.cancel(params.projectId, params.messageId);
        if (outcome === 'not-found') throw new NotFoundError('No such message in this project.');
        if (outcome === 'too-late')
          throw new ConflictError(
            'message-not-cancelable',
            'The message was sent or is being sent: only a scheduled message can be cancelled.',
          );
        if (outcome === 'not-scheduled')
          throw new ConflictError(
            'message-not-cancelable',
            'The message was sent without send_at: only a scheduled message can be cancelled.',
          );
        return { status: 200, body: outcome.canceled };
      },
    }),
  ]);
}
