import { randomBytes } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import {
  CreateWebhookRequest,
  DeliveryList,
  DeliveryListQuery,
  DeliveryRetryAccepted,
  InternalClientParams,
  InternalDeliveryParams,
  InternalWebhookParams,
  PAGE_LIMIT,
  UpdateWebhookRequest,
  Webhook,
  webhookTestBody,
  WebhookList,
  WebhookTestAccepted,
  WebhookWithSecret,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookFormat,
} from '@postbus/contracts';
import { NotFoundError, UnprocessableError, ValidationError } from '@postbus/errors';
import { decodeCursor, defineRoute, encodeCursor, isSequence, serveRoutes, UnsafeAddressError, type AddressPolicy } from '@postbus/http';
import { deliveryIdOf } from '../domain/delivery-keys';
import { retryByHand } from '../domain/manual-retry';
import type { DeliveryDoc, EndpointDoc } from '../domain/records';
import { bodyIn, eventsWithoutCounterpart } from '../domain/webhook-formats';
import type { DeliveryStore } from '../model/delivery.repository';
import type { EndpointInput, EndpointStore } from '../model/endpoint.repository';
import { toDelivery, toWebhook } from './views';

const NO_WEBHOOK = 'No such webhook for this client.';
const NOT_FOUND = { 404: { description: NO_WEBHOOK } };

export interface InternalApiDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  policy: AddressPolicy;
  /** After a rotation, how long the previous secret keeps signing. */
  secretOverlapMs: number;
}

/** Refuses a URL the dispatcher must not send to (before anything is sent to it). */
async function assertSafe(policy: AddressPolicy, url: string): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('The URL is invalid.', [{ pointer: '/url', message: 'must match format "uri"' }]);
  }
  try {
    await policy.check(parsed);
  } catch (error) {
    if (error instanceof UnsafeAddressError) {
      throw new UnprocessableError('webhook-url-refused', `Webhooks cannot be sent to this URL: ${error.message}.`);
    }
    throw error;
  }
}

/** Refuses events an endpoint's format would never send (a subscription that could only stay silent). */
function assertEventsInFormat(format: WebhookFormat, events: readonly string[]): void {
  const missing = eventsWithoutCounterpart(format, events);
  if (missing.length === 0) return;
  throw new UnprocessableError(
    'webhook-event-not-in-format',
    `The ${format} format has no counterpart for ${missing.join(', ')}: an endpoint in it would never get ${missing.length === 1 ? 'that event' : 'those events'} (docs/webhook-formats.md).`,
    missing.map((event) => ({ pointer: `/events/${events.indexOf(event)}`, message: `has no counterpart in the ${format} format` })),
  );
}

/**
 * The webhook endpoints and delivery log the gateway proxies to: the gateway has authenticated the
 * client and validated the bodies and queries with the same schemas; the client id in the path
 * scopes every read and write.
 */
export function internalApi({ endpoints, deliveries, policy, secretOverlapMs }: InternalApiDeps): RequestHandler {
  const base = '/internal/clients/:clientId/webhooks';

  const endpointOf = async ({ clientId, webhookId }: { clientId: string; webhookId: string }): Promise<EndpointDoc> => {
    const endpoint = await endpoints.get(clientId, webhookId);
    if (!endpoint) throw new NotFoundError(NO_WEBHOOK);
    return endpoint;
  };

  const routes = serveRoutes([
    defineRoute({
      method: 'post',
      path: base,
      params: InternalClientParams,
      body: CreateWebhookRequest,
      responses: { 201: { description: 'The webhook, with its secret', schema: WebhookWithSecret } },
      handle: async ({ params, body }) => {
        const format = body.format ?? 'standard';
        assertEventsInFormat(format, body.events);
        await assertSafe(policy, body.url);
        const { endpoint, secret } = await endpoints.create(params.clientId, {
          url: body.url,
          events: body.events,
          projectId: body.project_id ?? null,
          description: body.description ?? null,
          enabled: body.enabled ?? true,
          format,
        });
        return { status: 201, body: { ...toWebhook(endpoint), secret } };
      },
    }),
    defineRoute({
      method: 'get',
      path: base,
      params: InternalClientParams,
      responses: { 200: { description: "The client's webhooks", schema: WebhookList } },
      handle: async ({ params }) => ({ status: 200, body: { data: (await endpoints.list(params.clientId)).map(toWebhook) } }),
    }),
    defineRoute({
      method: 'get',
      path: `${base}/:webhookId`,
      params: InternalWebhookParams,
      responses: { 200: { description: 'The webhook', schema: Webhook }, ...NOT_FOUND },
      handle: async ({ params }) => ({ status: 200, body: toWebhook(await endpointOf(params)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${base}/:webhookId`,
      params: InternalWebhookParams,
      body: UpdateWebhookRequest,
      responses: { 200: { description: 'The webhook as updated', schema: Webhook }, ...NOT_FOUND },
      handle: async ({ params, body }) => {
        const current = await endpointOf(params);
        if (body.format !== undefined || body.events !== undefined) {
          assertEventsInFormat(body.format ?? current.format ?? 'standard', body.events ?? current.events);
        }
        if (body.url !== undefined && body.url !== current.url) await assertSafe(policy, body.url);
        const patch: Partial<EndpointInput> = {};
        if (body.url !== undefined) patch.url = body.url;
        if (body.events !== undefined) patch.events = body.events;
        if (body.project_id !== undefined) patch.projectId = body.project_id;
        if (body.description !== undefined) patch.description = body.description;
        if (body.enabled !== undefined) patch.enabled = body.enabled;
        if (body.format !== undefined) patch.format = body.format;
        const updated = await endpoints.update(params.clientId, params.webhookId, patch);
        if (!updated) throw new NotFoundError(NO_WEBHOOK);
        return { status: 200, body: toWebhook(updated) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${base}/:webhookId`,
      params: InternalWebhookParams,
      responses: { 204: { description: 'Deleted' }, ...NOT_FOUND },
      handle: async ({ params }) => {
        if (!(await endpoints.delete(params.clientId, params.webhookId))) throw new NotFoundError(NO_WEBHOOK);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:webhookId/rotate-secret`,
      params: InternalWebhookParams,
      responses: { 200: { description: 'The webhook, with its new secret', schema: WebhookWithSecret }, ...NOT_FOUND },
      handle: async ({ params }) => {
        const secret = await endpoints.rotate(params.clientId, params.webhookId, secretOverlapMs);
        const endpoint = secret === null ? null : await endpoints.get(params.clientId, params.webhookId);
        if (secret === null || !endpoint) throw new NotFoundError(NO_WEBHOOK);
        return { status: 200, body: { ...toWebhook(endpoint), secret } };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${base}/:webhookId/deliveries`,
      params: InternalWebhookParams,
      query: DeliveryListQuery,
      responses: { 200: { description: 'One page of the delivery log, newest first', schema: DeliveryList }, ...NOT_FOUND },
      handle: async ({ params, query }) => {
        const endpoint = await endpointOf(params);
        // A position means nothing in the list of other filters: the cursor is bound to them.
        const filters = { status: query.status, event_type: query.event_type };
        const beforeSeq = query.cursor === undefined ? undefined : decodeCursor(query.cursor, filters, isSequence);
        const page = await deliveries.page(endpoint._id, {
          limit: query.limit ?? PAGE_LIMIT.default,
          ...(query.status ? { status: query.status } : {}),
          ...(query.event_type ? { eventType: query.event_type } : {}),
          ...(beforeSeq !== undefined ? { beforeSeq } : {}),
        });
        const body: DeliveryList = {
          data: page.items.map(({ delivery, attempts }) => toDelivery(delivery, attempts)),
          next_cursor: page.next === null ? null : encodeCursor(page.next, filters),
        };
        return { status: 200, body };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:webhookId/deliveries/:deliveryId/retry`,
      params: InternalDeliveryParams,
      responses: {
        202: { description: 'The retry is scheduled', schema: DeliveryRetryAccepted },
        404: { description: 'No such delivery' },
      },
      handle: async ({ params }) => {
        const endpoint = await endpointOf(params);
        const delivery = await deliveries.delivery(params.deliveryId);
        if (!delivery || delivery.endpointId !== endpoint._id || delivery.clientId !== endpoint.clientId) {
          throw new NotFoundError('No such delivery for this webhook.');
        }
        await retryByHand(deliveries, delivery);
        return { status: 202, body: { status: 'scheduled', delivery_id: delivery._id } };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:webhookId/test`,
      params: InternalWebhookParams,
      responses: { 202: { description: 'A test event is on its way', schema: WebhookTestAccepted }, ...NOT_FOUND },
      handle: async ({ params }) => {
        const endpoint = await endpointOf(params);
        const eventId = `evt_test_${randomBytes(12).toString('hex')}`;
        const now = new Date();
        const format = endpoint.format ?? 'standard';
        const delivery: DeliveryDoc = {
          _id: deliveryIdOf(eventId, endpoint._id),
          endpointId: endpoint._id,
          clientId: endpoint.clientId,
          eventId,
          eventType: WEBHOOK_TEST_EVENT_TYPE,
          // Every format writes a body for it.
          payload: bodyIn(format, webhookTestBody(endpoint._id, now))!,
          ...(format === 'standard' ? {} : { format }),
          createdAt: now,
        };
        // add() only records and lists it; the first attempt is due now (the worker's poll takes it).
        const firstAttempts = await deliveries.add([delivery]);
        if (firstAttempts.length > 0) await deliveries.due.schedule(delivery._id, now, { attempt: 1, endpointId: endpoint._id });
        return { status: 202, body: { delivery_id: delivery._id } };
      },
    }),
  ]);
  return express.Router().use(express.json({ limit: '64kb' }), routes);
}
