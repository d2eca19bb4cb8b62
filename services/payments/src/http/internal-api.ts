import express, { type Router } from 'express';
import { normaliseEmail, type Payment, type Revenue, type UserRef } from '@postbus/contracts';
import type { KnownUsers } from '@postbus/db';
import { UnprocessableError, ValidationError } from '@postbus/errors';
import { filteredPage, queryLimit, queryText } from '@postbus/http';
import { erasedList, userList, type PaymentRepository } from '../model/payment.repository';
import { erasedPseudonym } from '../domain/erasure-participant';
import type { PaymentDoc } from '../model/payment.schema';

/** The email of anonymised payments: `erased:<erasure id>`. */
const ERASED = erasedPseudonym('');

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: unknown): value is string =>
  typeof value === 'string' && DAY.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

const toPayment = (p: PaymentDoc): Payment => ({
  payment_id: p.paymentId,
  email: p.email,
  user_id: p.userId,
  amount: p.amount,
  currency: p.currency,
  paid_at: p.paidAt.toISOString(),
  description: p.description,
  metadata: p.metadata,
  recorded_at: p.recordedAt.toISOString(),
});

/**
 * The read API the gateway proxies to. It is internal: the gateway has already authenticated the
 * client and checked that the project is theirs.
 */
export function internalApi(payments: PaymentRepository, users: KnownUsers): Router {
  const router = express.Router();
  router.get('/internal/projects/:projectId/payments', async (req, res) => {
    const { projectId } = req.params;
    const { email, user_id: userId } = req.query;
    let ref: UserRef;
    if (typeof email === 'string' && email) ref = { email: normaliseEmail(email) };
    else if (typeof userId === 'string' && userId) ref = { userId };
    else throw new ValidationError('Pass the email or the user_id of the user.', [{ pointer: '/email', message: 'is required' }]);
    // The user's list (by the users service's id, a point read away), or the one of an erasure's pseudonym.
    const pseudonym = ref.email?.startsWith(ERASED) ? ref.email.slice(ERASED.length) : undefined;
    const known = pseudonym === undefined ? await users.find(projectId, ref) : null;
    const list = pseudonym !== undefined ? erasedList(projectId, pseudonym) : known ? userList(projectId, known.id) : null;
    // The cursor's position is the list's number (in the place of an id): newest recorded first.
    const page = await filteredPage({
      limit: queryLimit(req.query['limit']),
      cursor: queryText(req.query['cursor']),
      fetch: async (limit, after) => {
        if (after && !/^[1-9]\d{0,15}$/.test(after.id))
          throw new UnprocessableError('invalid-cursor', 'The cursor is not one this API gave out; use next_cursor of a previous page.');
        if (!list) return [];
        const entries = await payments.page(projectId, list, limit, after ? Number(after.id) : undefined);
        return entries.map((e) => ({ _id: String(e.seq), createdAt: e.at, payment: e.payment }));
      },
      view: (docs) =>
        Promise.resolve(
          docs.map((d) => (d.payment && (pseudonym !== undefined || !d.payment.email.startsWith(ERASED)) ? toPayment(d.payment) : null)),
        ),
      keep: (view) => view !== null,
    });
    res.json({ ...page, data: page.data.filter((p): p is Payment => p !== null) });
  });
  router.get('/internal/projects/:projectId/revenue', async (req, res) => {
    const { from, to } = req.query;
    const errors = [
      ...(isDay(from) ? [] : [{ pointer: '/from', message: 'must be a date (YYYY-MM-DD)' }]),
      ...(isDay(to) ? [] : [{ pointer: '/to', message: 'must be a date (YYYY-MM-DD)' }]),
    ];
    if (errors.length > 0) throw new ValidationError('The date range is invalid.', errors);
    if ((to as string) < (from as string))
      throw new ValidationError('The range ends before it starts.', [{ pointer: '/to', message: 'must not be before from' }]);
    const figures = await payments.revenue(req.params.projectId, from as string, to as string);
    const body: Revenue = {
      from: from as string,
      to: to as string,
      currencies: figures.currencies.map((c) => ({
        currency: c.currency,
        total: c.total,
        payments: c.payments,
        paying_users: c.payingUsers,
        average_per_paying_user: c.payingUsers > 0 ? Math.round((c.total / c.payingUsers) * 100) / 100 : 0,
      })),
      paying_users: figures.payingUsers,
      days: figures.days,
    };
    res.json(body);
  });
  return router;
}
