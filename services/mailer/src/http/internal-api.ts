import express, { type Router } from 'express';
import { normaliseEmail, type Message, type MessageStatus } from '@postbus/contracts';
import { NotFoundError } from '@postbus/errors';
import { filteredPage, queryLimit, queryText } from '@postbus/http';
import { statusOf, type EventDoc, type MessageDoc, type MessageStore } from '../model/messages';
import { queuedEntry } from '../timeline';

const countOf = (events: EventDoc[], event: 'opened' | 'clicked'): number =>
  events.reduce((n, e) => (e.event === event ? n + (e.count ?? 1) : n), 0);

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
    opens: countOf(events, 'opened'),
    clicks: countOf(events, 'clicked'),
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
      ...(e.count ? { count: e.count } : {}),
    })),
  };
}

/** The message log the gateway proxies to; the gateway has authenticated the client and checked the project. */
export function internalApi(store: MessageStore): Router {
  const router = express.Router();
  router.get('/internal/projects/:projectId/messages', async (req, res) => {
    const email = queryText(req.query['email']);
    const userId = queryText(req.query['user_id']);
    const status = queryText(req.query['status']) as MessageStatus | undefined;
    const filter = { projectId: req.params.projectId, ...(email ? { email: normaliseEmail(email) } : {}), ...(userId ? { userId } : {}) };
    res.json(
      await filteredPage({
        limit: queryLimit(req.query['limit']),
        cursor: queryText(req.query['cursor']),
        fetch: (limit, after) => store.page(filter, limit, after),
        view: async (page) => {
          const timelines = await store.timelines(page.map((m) => m._id));
          return page.map((m) => toMessage(m, timelines.get(m._id) ?? []));
        },
        ...(status ? { keep: (m: Message) => m.status === status } : {}),
      }),
    );
  });
  router.get('/internal/projects/:projectId/messages/:messageId', async (req, res) => {
    const message = await store.message(req.params.projectId, req.params.messageId);
    if (!message) throw new NotFoundError('No such message in this project.');
    const timelines = await store.timelines([message._id]);
    res.json(toMessage(message, timelines.get(message._id) ?? []));
  });
  return router;
}
