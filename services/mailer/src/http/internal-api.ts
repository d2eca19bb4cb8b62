import express, { type RequestHandler } from 'express';
import {
  InternalMessageContent,
  InternalMessageParams,
  InternalProjectParams,
  InternalReschedule,
  InternalSuppressedAddresses,
  InternalSuppressionCheck,
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

const NOT_RESCHEDULABLE = {
  'too-late': 'The message was sent, is being sent, or is due within seconds: only a message waiting for its time can be moved.',
  canceled: 'The message was canceled: a canceled message cannot be scheduled again.',
  'not-scheduled': 'The message was sent without send_at: only a scheduled message can be moved to another time.',
} as const;

const messageBeingRescheduled = () =>
  new ConflictError('message-being-rescheduled', "Another request is changing this message's time or canceling it; retry in a moment.");

/** The message log and the suppression list the gateway proxies to; the gateway has authenticated the client and checked the project. */
export function internalApi(
  log: MessageLog,
  rollups: StatusRollups,
  suppressions: Suppressions,
  scheduled: ScheduledSends,
): RequestHandler {
  // The JSON bodies of these routes (a suppression check's, a reschedule's) are parsed here: the attachments' bytes are another router's.
  // The largest is a check of a whole batch: 500 addresses of up to 254 characters, quoted and separated.
  return express.Router().use(express.json({ limit: '256kb' }), internalRoutes(log, rollups, suppressions, scheduled));
}

function internalRoutes(log: MessageLog, rollups: StatusRollups, suppressions: Suppressions, scheduled: ScheduledSends): RequestHandler {
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
      method: 'post',
      path: '/internal/projects/:projectId/suppressions/check',
      params: InternalProjectParams,
      body: InternalSuppressionCheck,
      responses: {
        200: { description: 'The suppressed ones among the addresses, with their reasons', schema: InternalSuppressedAddresses },
      },
      handle: async ({ params, body }) => {
        const emails = [...new Set(body.emails.map(normaliseEmail))];
        // The send path's own check: point reads of the markers, then of a marked address's keys.
        const reasons = await suppressions.reasons(emails.map((email) => ({ projectId: params.projectId, email })));
        const data = emails.flatMap((email, i) => {
          const reason = reasons[i];
          return reason === undefined ? [] : [{ email, reason }];
        });
        return { status: 200, body: { data } };
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
        if (outcome === 'busy') throw messageBeingRescheduled();
        return { status: 200, body: outcome.canceled };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/internal/projects/:projectId/messages/:messageId/schedule',
      params: InternalMessageParams,
      body: InternalReschedule,
      responses: {
        200: { description: 'The message, with its new send_at', schema: Message },
        404: NO_MESSAGE,
        409: { description: 'Sent, being sent or due now, canceled, never scheduled, or its time being changed by another request' },
      },
      handle: async ({ params, body }) => {
        const outcome = await scheduled.reschedule(params.projectId, params.messageId, new Date(body.send_at));
        if (outcome === 'not-found') throw new NotFoundError('No such message in this project.');
        if (outcome === 'busy') throw messageBeingRescheduled();
        if (typeof outcome === 'string') throw new ConflictError('message-not-reschedulable', NOT_RESCHEDULABLE[outcome]);
        return { status: 200, body: outcome.rescheduled };
      },
    }),
  ]);
}
