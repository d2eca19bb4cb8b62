import express, { type Router } from 'express';
import { normaliseEmail, type Message, type MessageStatus } from '@postbus/contracts';
import { NotFoundError, ValidationError } from '@postbus/errors';
import { statusOf, type EventDoc, type MessageDoc, type MessageStore } from '../model/messages';
import { queuedEntry } from '../timeline';

const MAX_SCANNED_PAGES = 20;

export function toMessage(message: MessageDoc, events: EventDoc[]): Message {
  const timeline = [queuedEntry(message), ...events];
  const last = timeline[timeline.length - 1]!;
  return {
    id: message._id,
    project_id: message.projectId,
    email_key: message.emailKey,
    email: message.email,
    user_id: message.userId,
    status: statusOf(events),
    subject: [...events].reverse().find((e) => e.subject)?.subject ?? null,
    opened: events.some((e) => e.event === 'opened'),
    clicked: events.some((e) => e.event === 'clicked'),
    created_at: message.createdAt.toISOString(),
    updated_at: last.at.toISOString(),
    timeline: timeline.map((e) => ({
      sequence: e.sequence,
      event: e.event,
      at: e.at.toISOString(),
      ...(e.smtp ? { smtp: e.smtp } : {}),
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.url ? { url: e.url } : {}),
      ...(e.attempt ? { attempt: e.attempt } : {}),
    })),
  };
}

const encodeCursor = (m: MessageDoc) => Buffer.from(`${m.createdAt.toISOString()}|${m._id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()))
    throw new ValidationError('The cursor is not one this API gave out.', [{ pointer: '/cursor', message: 'is invalid' }]);
  return { createdAt, id };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The message log the gateway proxies to; the gateway has authenticated the client and checked the project. */
export function internalApi(store: MessageStore): Router {
  const router = express.Router();
  router.get('/internal/projects/:projectId/messages', async (req, res) => {
    const email = text(req.query['email']);
    const userId = text(req.query['user_id']);
    const status = text(req.query['status']) as MessageStatus | undefined;
    const limit = Math.min(100, Math.max(1, Number(text(req.query['limit']) ?? 50) || 50));
    const cursorText = text(req.query['cursor']);
    let after = cursorText ? decodeCursor(cursorText) : undefined;
    const filter = { projectId: req.params.projectId, ...(email ? { email: normaliseEmail(email) } : {}), ...(userId ? { userId } : {}) };

    // A status filter is applied to each page's derived statuses, reading pages until one is full.
    const data: Message[] = [];
    let next: string | null = null;
    for (let pages = 0; pages < MAX_SCANNED_PAGES && data.length < limit; pages++) {
      const page = await store.page(filter, limit, after);
      const timelines = await store.timelines(page.map((m) => m._id));
      for (const message of page) {
        const view = toMessage(message, timelines.get(message._id) ?? []);
        if (status && view.status !== status) continue;
        data.push(view);
        if (data.length === limit) {
          next = encodeCursor(message);
          break;
        }
      }
      if (page.length < limit) {
        next = null;
        break;
      }
      after = { createdAt: page[page.length - 1]!.createdAt, id: page[page.length - 1]!._id };
      if (data.length < limit) next = encodeCursor(page[page.length - 1]!);
    }
    res.json({ data, next_cursor: next });
  });
  router.get('/internal/projects/:projectId/messages/:messageId', async (req, res) => {
    const message = await store.message(req.params.projectId, req.params.messageId);
    if (!message) throw new NotFoundError('No such message in this project.');
    const timelines = await store.timelines([message._id]);
    res.json(toMessage(message, timelines.get(message._id) ?? []));
  });
  return router;
}
