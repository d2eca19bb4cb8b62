import express, { type Router } from 'express';
import { NotFoundError } from '@postbus/errors';
import { maskEmails } from '@postbus/logger';
import type { ListedSubscriber, SubscriberStore } from '../domain/ports';
import { requireOperator } from './operator-auth';

/**
 * A subscriber as operators see it. The address is shown masked (an email address is a person's),
 * a webhook by its origin only (its path and query often hold the receiver's own token), and its
 * signing secret never.
 */
export function subscriberView(subscriber: ListedSubscriber, unconfirmedTtlMs: number) {
  return {
    id: subscriber.id,
    kind: subscriber.kind,
    confirmed: subscriber.confirmedAt !== null,
    confirmed_at: subscriber.confirmedAt?.toISOString() ?? null,
    created_at: subscriber.createdAt.toISOString(),
    expires_at: subscriber.confirmedAt ? null : new Date(subscriber.createdAt.getTime() + unconfirmedTtlMs).toISOString(),
    target: subscriber.kind === 'email' ? maskEmails(subscriber.address) : originOf(subscriber.address),
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a URL)';
  }
}

/**
 * `GET /api/operator/subscribers` and `DELETE /api/operator/subscribers/{id}` (Bearer
 * STATUS_OPERATOR_TOKEN, as the rest of the operator API; with no token every call is refused).
 * Errors go on to the caller's problem handler.
 */
export function subscriberAdmin(options: { subscribers: SubscriberStore; operatorToken?: string; unconfirmedTtlMs: number }): Router {
  const router = express.Router();
  router.use(
    '/api/operator/subscribers',
    (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
    requireOperator(options.operatorToken),
  );
  router.get('/api/operator/subscribers', async (_req, res) => {
    const subscribers = await options.subscribers.list();
    res.json({ data: subscribers.map((s) => subscriberView(s, options.unconfirmedTtlMs)) });
  });
  router.delete('/api/operator/subscribers/:id', async (req, res) => {
    if (!(await options.subscribers.remove(String(req.params.id)))) throw new NotFoundError('There is no subscriber with this id.');
    res.status(204).end();
  });
  return router;
}
