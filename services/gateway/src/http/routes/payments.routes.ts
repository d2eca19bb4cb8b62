import {
  Accepted,
  CreatePaymentRequest,
  PaymentList,
  PaymentListQuery,
  ProjectIdParam,
  Revenue,
  RevenueQuery,
  Topics,
  userOrderingKey,
} from '@postbus/contracts';
import { UnprocessableError } from '@postbus/errors';
import type { CommandSender } from '../../clients/command-sender';
import type { PaymentsClient } from '../../clients/payments-client';
import { userRefOf } from '../../domain/user-ref';
import { defineRoute, type RouteSpec } from '../route';

export interface PaymentRouteDeps {
  commands: CommandSender;
  paymentsApi: PaymentsClient;
}

const PAYMENTS_DOWN = { 503: { description: 'The payments service did not answer (see Retry-After)' } };

/** Recording payments (data plane, any key) and reading them and the revenue back. */
export function paymentRoutes({ commands, paymentsApi }: PaymentRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/projects/:projectId/payments',
      tenant: { project: 'projectId' },
      operationId: 'createPayment',
      summary: 'Add user payments',
      tag: 'Payments',
      scope: 'sdk',
      params: ProjectIdParam,
      body: CreatePaymentRequest,
      responses: { 200: { description: 'Accepted: validated and durably queued', schema: Accepted } },
      handle: async ({ params, body, requestId }) => {
        const user = userRefOf(body);
        const acceptedAt = new Date().toISOString();
        await commands.send(
          Topics.PaymentCommands,
          'payment.record',
          userOrderingKey(params.projectId, user),
          {
            projectId: params.projectId,
            user,
            paymentId: body.payment_id,
            amount: body.amount,
            currency: body.currency,
            paidAt: body.paid_at ?? acceptedAt,
            ...(body.description !== undefined ? { description: body.description } : {}),
            ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
            acceptedAt,
          },
          requestId,
        );
        return { status: 200, body: { status: 'accepted', request_id: requestId } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/payments',
      tenant: { project: 'projectId' },
      operationId: 'listPayments',
      summary: "List a user's payments, newest recorded first",
      tag: 'Payments',
      scope: 'full',
      params: ProjectIdParam,
      query: PaymentListQuery,
      responses: {
        200: { description: "A page of the user's payments (`next_cursor` for the next)", schema: PaymentList },
        ...PAYMENTS_DOWN,
      },
      handle: async ({ params, query }) => {
        const page = { ...(query.limit !== undefined ? { limit: query.limit } : {}), ...(query.cursor ? { cursor: query.cursor } : {}) };
        return { status: 200, body: await paymentsApi.listPayments(params.projectId, userRefOf(query), page) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/projects/:projectId/analytics/revenue',
      tenant: { project: 'projectId' },
      operationId: 'getRevenue',
      summary: 'Revenue per currency and day, and paying users, over a range of days (UTC, inclusive)',
      tag: 'Payments',
      scope: 'full',
      params: ProjectIdParam,
      query: RevenueQuery,
      responses: { 200: { description: 'The revenue figures', schema: Revenue }, ...PAYMENTS_DOWN },
      handle: async ({ params, query }) => {
        if (query.to < query.from)
          throw new UnprocessableError('invalid-range', 'The range ends before it starts: to must not be before from.');
        return { status: 200, body: await paymentsApi.revenue(params.projectId, query.from, query.to) };
      },
    }),
  ];
}
