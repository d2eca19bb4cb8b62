import type { RequestHandler } from 'express';
import {
  InternalPaymentListQuery,
  InternalProjectParams,
  normaliseEmail,
  PAGE_LIMIT,
  PaymentList,
  Revenue,
  RevenueQuery,
  type Payment,
  type UserRef,
} from '@postbus/contracts';
import type { KnownUsers } from '@postbus/db';
import { ValidationError } from '@postbus/errors';
import { defineRoute, filteredPage, isSequence, serveRoutes } from '@postbus/http';
import { isShown, PaymentReads } from '../domain/payment-reads';
import type { PaymentRecord } from '../domain/records';
import { averagePerPayingUser, checkRevenueRange } from '../domain/revenue';
import type { PaymentRepository } from '../model/payment.repository';

const toPayment = (p: PaymentRecord): Payment => ({
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
export function internalApi(payments: PaymentRepository, users: KnownUsers): RequestHandler {
  const reads = new PaymentReads(users);
  return serveRoutes([
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/payments',
      params: InternalProjectParams,
      query: InternalPaymentListQuery,
      responses: { 200: { description: "One page of the user's payments, newest recorded first", schema: PaymentList } },
      handle: async ({ params: { projectId }, query }) => {
        let ref: UserRef;
        if (query.email) ref = { email: normaliseEmail(query.email) };
        else if (query.user_id) ref = { userId: query.user_id };
        else throw new ValidationError('Pass the email or the user_id of the user.', [{ pointer: '/email', message: 'is required' }]);
        const listing = await reads.listing(projectId, ref);
        const page = await filteredPage({
          limit: query.limit ?? PAGE_LIMIT.default,
          cursor: query.cursor,
          filters: { email: ref.email, user_id: ref.userId },
          // The position is the list's number: newest recorded first.
          isPosition: isSequence,
          fetch: async (limit, before) => (listing.list ? payments.page(projectId, listing.list, limit, before) : []),
          positionAfter: (entry) => entry.seq,
          view: (entries) => Promise.resolve(entries.map((e) => (isShown(listing, e.payment) ? toPayment(e.payment) : null))),
          keep: (view) => view !== null,
        });
        return { status: 200, body: { ...page, data: page.data.filter((p): p is Payment => p !== null) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/projects/:projectId/revenue',
      params: InternalProjectParams,
      query: RevenueQuery,
      responses: { 200: { description: 'Revenue per currency and day', schema: Revenue } },
      handle: async ({ params, query: { from, to } }) => {
        checkRevenueRange(from, to);
        const figures = await payments.revenue(params.projectId, from, to);
        const body: Revenue = {
          from,
          to,
          currencies: figures.currencies.map((c) => ({
            currency: c.currency,
            total: c.total,
            payments: c.payments,
            paying_users: c.payingUsers,
            average_per_paying_user: averagePerPayingUser(c.total, c.payingUsers),
          })),
          paying_users: figures.payingUsers,
          days: figures.days,
        };
        return { status: 200, body };
      },
    }),
  ]);
}
