import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { NotFoundError, UnauthorizedError } from '@postbus/errors';
import { maskEmails } from '@postbus/logger';
import type { ListedSubscriber, SubscriberStore } from '../model/subscriber.repository';

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

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `GET /api/operator/subscribers` and `DELETE /api/operator/subscribers/{id}` (Bearer
 * STATUS_OPERATOR_TOKEN, as the rest of the operator API; with no token every call is refused).
 * Errors go on to the caller's problem handler.
 */
export function subscriberAdmin(options: { subscribers: SubscriberStore; operatorToken?: string; unconfirmedTtlMs: number }): Router {
  const router = express.Router();
  const expected = options.operatorToken ? digest(options.operatorToken) : undefined;
  router.use('/api/operator/subscribers', (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    const match = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    if (!expected || !match || !timingSafeEqual(digest(match[1]!), expected)) {
      const error = new UnauthorizedError(
        expected ? 'Send the operator token as a Bearer token.' : 'The operator API is disabled: set STATUS_OPERATOR_TOKEN.',
      );
      error.headers['WWW-Authenticate'] = 'Bearer realm="postbus-status"';
      return next(error);
    }
    next();
  });
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
