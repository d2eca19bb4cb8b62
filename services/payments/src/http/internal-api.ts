import express, { type Router } from 'express';
import { normaliseEmail, type Payment, type Revenue, type UserRef } from '@postbus/contracts';
import { ValidationError } from '@postbus/errors';
import { filteredPage, queryLimit, queryText } from '@postbus/http';
import type { PaymentRepository } from '../model/payment.repository';
import type { PaymentDoc } from '../model/payment.schema';

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
export function internalApi(payments: PaymentRepository): Router {
  const router = express.Router();
  router.get('/internal/projects/:projectId/payments', async (req, res) => {
    const { email, user_id: userId } = req.query;
    let ref: UserRef;
    if (typeof email === 'string' && email) ref = { email: normaliseEmail(email) };
    else if (typeof userId === 'string' && userId) ref = { userId };
    else throw new ValidationError('Pass the email or the user_id of the user.', [{ pointer: '/email', message: 'is required' }]);
    // The list's position is the payment time: the cursor carries it where others carry a creation time.
    const page = await filteredPage({
      limit: queryLimit(req.query['limit']),
      cursor: queryText(req.query['cursor']),
      fetch: async (limit, after) =>
        (await payments.list(req.params.projectId, ref, limit, after && { paidAt: after.createdAt, id: after.id })).map((p) => ({
          ...p,
          createdAt: p.paidAt,
        })),
      view: (docs) => Promise.resolve(docs.map(toPayment)),
    });
    res.json(page);
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
