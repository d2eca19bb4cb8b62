import express, { type Router } from 'express';
import {
  MAX_STATS_DAYS,
  MESSAGE_STATUSES,
  normaliseEmail,
  SUPPRESSION_REASONS,
  type MessageStatus,
  type SuppressionReason,
} from '@postbus/contracts';
import { NotFoundError, ValidationError } from '@postbus/errors';
import { decodeListCursor, encodeListCursor, queryLimit, queryText } from '@postbus/http';
import type { MessageLog } from '../domain/message-log';
import type { StatusRollups } from '../model/rollup.repository';
import type { Suppressions } from '../model/suppression.repository';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function queryTime(value: unknown, name: string): Date | undefined {
  const text = queryText(value);
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw new ValidationError(`${name} must be a date-time (RFC 3339).`);
  return time;
}

function queryDay(value: unknown, name: string): string {
  const text = queryText(value);
  if (text === undefined || !DAY.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`)))
    throw new ValidationError(`${name} must be a day (YYYY-MM-DD).`);
  return text;
}

/** The message log and the suppression list the gateway proxies to; the gateway has authenticated the client and checked the project. */
export function internalApi(log: MessageLog, rollups: StatusRollups, suppressions: Suppressions): Router {
  const router = express.Router();
  router.get('/internal/projects/:projectId/suppressions', async (req, res) => {
    const email = queryText(req.query['email']);
    const reason = queryText(req.query['reason']);
    if (reason !== undefined && !(SUPPRESSION_REASONS as readonly string[]).includes(reason))
      throw new ValidationError(`reason must be one of ${SUPPRESSION_REASONS.join(', ')}.`);
    const cursor = queryText(req.query['cursor']);
    const page = await suppressions.page(req.params.projectId, {
      ...(email ? { email: normaliseEmail(email) } : {}),
      ...(reason ? { reason: reason as SuppressionReason } : {}),
      limit: queryLimit(req.query['limit']),
      ...(cursor ? { cursor: decodeListCursor(cursor) } : {}),
    });
    res.json({ data: page.data, next_cursor: page.next === null ? null : encodeListCursor(page.next) });
  });
  router.get('/internal/projects/:projectId/messages', async (req, res) => {
    const email = queryText(req.query['email']);
    const userId = queryText(req.query['user_id']);
    const emailKey = queryText(req.query['email_key']);
    const status = queryText(req.query['status']);
    if (status !== undefined && !(MESSAGE_STATUSES as readonly string[]).includes(status))
      throw new ValidationError(`status must be one of ${MESSAGE_STATUSES.join(', ')}.`);
    const from = queryTime(req.query['from'], 'from');
    const to = queryTime(req.query['to'], 'to');
    const cursor = queryText(req.query['cursor']);
    res.json(
      await log.page({
        projectId: req.params.projectId,
        ...(email ? { email: normaliseEmail(email) } : {}),
        ...(userId ? { userId } : {}),
        ...(emailKey ? { emailKey } : {}),
        ...(status ? { status: status as MessageStatus } : {}),
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        limit: queryLimit(req.query['limit']),
        ...(cursor ? { cursor } : {}),
      }),
    );
  });
  // Before /:messageId, which would take "stats" for a message id.
  router.get('/internal/projects/:projectId/messages/stats', async (req, res) => {
    const from = queryDay(req.query['from'], 'from');
    const to = queryDay(req.query['to'], 'to');
    const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
    if (days < 1) throw new ValidationError('to must not be before from.');
    if (days > MAX_STATS_DAYS) throw new ValidationError(`At most ${MAX_STATS_DAYS} days at once.`);
    res.json({ data: await rollups.days(req.params.projectId, from, to) });
  });
  // `{content: null}` for a message that was never rendered, so the gateway can tell it from an unknown one.
  router.get('/internal/projects/:projectId/messages/:messageId/content', async (req, res) => {
    const found = await log.content(req.params.projectId, req.params.messageId);
    if (!found) throw new NotFoundError('No such message in this project.');
    res.json(found);
  });
  router.get('/internal/projects/:projectId/messages/:messageId', async (req, res) => {
    const message = await log.message(req.params.projectId, req.params.messageId);
    if (!message) throw new NotFoundError('No such message in this project.');
    res.json(message);
  });
  return router;
}
