import { randomBytes } from 'node:crypto';
import express, { type Request, type Router } from 'express';
import {
  DELIVERY_STATUSES,
  serialiseWebhookBody,
  webhookTestBody,
  type CreateWebhookRequest,
  type Delivery,
  type DeliveryStatus,
  type UpdateWebhookRequest,
  type Webhook,
  WEBHOOK_TEST_EVENT_TYPE,
} from '@postbus/contracts';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError } from '@postbus/errors';
import { queryLimit, queryText, UnsafeAddressError, type AddressPolicy } from '@postbus/http';
import { deliveryIdOf, statusOf, type AttemptDoc, type DeliveryDoc, type DeliveryStore } from '../model/delivery.repository';
import type { EndpointDoc, EndpointInput, EndpointStore } from '../model/endpoint.repository';

const NO_WEBHOOK = 'No such webhook for this client.';

interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: string;
}

/**
 * A delivery-log cursor: the position in the list the page was read from, and the filters that
 * chose that list (a position means nothing in another list). Opaque to clients.
 */
const filterKey = (f: DeliveryFilters): string => `${f.status ?? ''}|${f.eventType ?? ''}`;

export const encodeDeliveryCursor = (seq: number, filters: DeliveryFilters): string =>
  Buffer.from(`d1|${seq}|${filterKey(filters)}`).toString('base64url');

export function decodeDeliveryCursor(cursor: string, filters: DeliveryFilters): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const [version, seq, ...rest] = text.split('|');
  if (version !== 'd1' || !/^[1-9]\d{0,15}$/.test(seq ?? '') || rest.join('|') !== filterKey(filters))
    // Well-formed (the schema checked its length) but not one of ours, or of another filter: a 422, not a 400.
    throw new UnprocessableError(
      'invalid-cursor',
      'The cursor is not one this API gave out for these filters; use next_cursor of a previous page with the same filters.',
    );
  return Number(seq);
}

export interface InternalApiDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  policy: AddressPolicy;
  /** After a rotation, how long the previous secret keeps signing. */
  secretOverlapMs: number;
}

export function toWebhook(e: EndpointDoc): Webhook {
  return {
    id: e._id,
    url: e.url,
    events: e.events,
    project_id: e.projectId,
    description: e.description,
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function toDelivery(d: DeliveryDoc, attempts: AttemptDoc[]): Delivery {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(d.payload) as Record<string, unknown>;
  } catch {
    payload = {};
  }
  return {
    id: d._id,
    event_id: d.eventId,
    // Stored from the bodies' own types, which the schema lists.
    event_type: d.eventType as Delivery['event_type'],
    status: statusOf(attempts),
    created_at: d.createdAt.toISOString(),
    payload,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      status_code: a.statusCode,
      latency_ms: Math.round(a.latencyMs),
      response: a.response,
      error: a.error,
      outcome: a.outcome,
      next_attempt_at: a.outcome === 'retrying' && a.nextAttemptAt ? a.nextAttemptAt.toISOString() : null,
    })),
  };
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

/**
 * The webhook endpoints and delivery log the gateway proxies to: the gateway has authenticated the
 * client and validated the bodies and queries (CreateWebhookRequest, UpdateWebhookRequest,
 * DeliveryListQuery); the client id in the path scopes every read and write.
 */
export function internalApi({ endpoints, deliveries, policy, secretOverlapMs }: InternalApiDeps): Router {
  const router = express.Router();
  router.use(express.json({ limit: '64kb' }));
  const base = '/internal/clients/:clientId/webhooks';

  const endpointOf = async (req: Request<{ clientId: string; webhookId: string }>): Promise<EndpointDoc> => {
    const endpoint = await endpoints.get(req.params.clientId, req.params.webhookId);
    if (!endpoint) throw new NotFoundError(NO_WEBHOOK);
    return endpoint;
  };

  router.post(base, async (req: Request<{ clientId: string }>, res) => {
    const body = req.body as CreateWebhookRequest;
    await assertSafe(policy, body.url);
    const { endpoint, secret } = await endpoints.create(req.params.clientId, {
      url: body.url,
      events: body.events,
      projectId: body.project_id ?? null,
      description: body.description ?? null,
      enabled: body.enabled ?? true,
    });
    res.status(201).json({ ...toWebhook(endpoint), secret });
  });

  router.get(base, async (req: Request<{ clientId: string }>, res) => {
    res.json({ data: (await endpoints.list(req.params.clientId)).map(toWebhook) });
  });

  router.get(`${base}/:webhookId`, async (req: Request<{ clientId: string; webhookId: string }>, res) => {
    res.json(toWebhook(await endpointOf(req)));
  });

  router.patch(`${base}/:webhookId`, async (req: Request<{ clientId: string; webhookId: string }>, res) => {
    const body = req.body as UpdateWebhookRequest;
    const current = await endpointOf(req);
    if (body.url !== undefined && body.url !== current.url) await assertSafe(policy, body.url);
    const patch: Partial<EndpointInput> = {};
    if (body.url !== undefined) patch.url = body.url;
    if (body.events !== undefined) patch.events = body.events;
    if (body.project_id !== undefined) patch.projectId = body.project_id;
    if (body.description !== undefined) patch.description = body.description;
    if (body.enabled !== undefined) patch.enabled = body.enabled;
    const updated = await endpoints.update(req.params.clientId, req.params.webhookId, patch);
    if (!updated) throw new NotFoundError(NO_WEBHOOK);
    res.json(toWebhook(updated));
  });

  router.delete(`${base}/:webhookId`, async (req: Request<{ clientId: string; webhookId: string }>, res) => {
    if (!(await endpoints.delete(req.params.clientId, req.params.webhookId))) throw new NotFoundError(NO_WEBHOOK);
    res.status(204).end();
  });

  router.post(`${base}/:webhookId/rotate-secret`, async (req: Request<{ clientId: string; webhookId: string }>, res) => {
    const secret = await endpoints.rotate(req.params.clientId, req.params.webhookId, secretOverlapMs);
    const endpoint = secret === null ? null : await endpoints.get(req.params.clientId, req.params.webhookId);
    if (secret === null || !endpoint) throw new NotFoundError(NO_WEBHOOK);
    res.json({ ...toWebhook(endpoint), secret });
  });

  router.get(`${base}/:webhookId/deliveries`, async (req: Request<{ clientId: string; webhookId: string }>, res) => {
    const endpoint = await endpointOf(req);
    const status = queryText(req.query['status']);
    if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
      throw new ValidationError('The query is invalid.', [
        { pointer: '/status', message: `must be equal to one of the allowed values: ${DELIVERY_STATUSES.join(', ')}` },
      ]);
    }
    const eventType = queryText(req.query['event_type']);
    const filters = { ...(status ? { status: status as DeliveryStatus } : {}), ...(eventType ? { eventType } : {}) };
    const cursor = queryText(req.query['cursor']);
    const beforeSeq = cursor === undefined ? undefined : decodeDeliveryCursor(cursor, filters);
    const page = await deliveries.page(endpoint._id, {
      limit: queryLimit(req.query['limit']),
      ...filters,
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
    });
    res.json({
      data: page.items.map(({ delivery, attempts }) => toDelivery(delivery, attempts)),
      next_cursor: page.next === null ? null : encodeDeliveryCursor(page.next, filters),
    });
  });

  router.post(
    `${base}/:webhookId/deliveries/:deliveryId/retry`,
    async (req: Request<{ clientId: string; webhookId: string; deliveryId: string }>, res) => {
      const endpoint = await endpointOf(req);
      const delivery = await deliveries.delivery(req.params.deliveryId);
      if (!delivery || delivery.endpointId !== endpoint._id || delivery.clientId !== endpoint.clientId) {
        throw new NotFoundError('No such delivery for this webhook.');
      }
      const attempts = await deliveries.attemptsOf(delivery._id);
      const status = statusOf(attempts);
      if (status === 'succeeded') throw new ConflictError('delivery-succeeded', 'This delivery succeeded; there is nothing to retry.');
      // Pending: still being tried, or a retry by hand is already scheduled.
      if (status === 'pending' || (await deliveries.due.pending(delivery._id))) {
        throw new ConflictError('delivery-pending', 'This delivery is still being tried; it can be retried once it has failed.');
      }
      const lastAttempt = attempts.reduce((max, a) => Math.max(max, a.attempt), 0);
      await deliveries.due.schedule(delivery._id, new Date(), { attempt: lastAttempt + 1, endpointId: endpoint._id, manual: true });
      res.status(202).json({ status: 'scheduled', delivery_id: delivery._id });
    },
  );

  router.post(`${base}/:webhookId/test`, async (req: Request<{ clientId: string; webhookId: string }>, res) => {
    const endpoint = await endpointOf(req);
    const eventId = `evt_test_${randomBytes(12).toString('hex')}`;
    const now = new Date();
    const delivery: DeliveryDoc = {
      _id: deliveryIdOf(eventId, endpoint._id),
      endpointId: endpoint._id,
      clientId: endpoint.clientId,
      eventId,
      eventType: WEBHOOK_TEST_EVENT_TYPE,
      payload: serialiseWebhookBody(webhookTestBody(endpoint._id, now)),
      createdAt: now,
    };
    // add() only records and lists it; the first attempt is due now (the worker's poll takes it).
    const firstAttempts = await deliveries.add([delivery]);
    if (firstAttempts.length > 0) await deliveries.due.schedule(delivery._id, now, { attempt: 1, endpointId: endpoint._id });
    res.status(202).json({ delivery_id: delivery._id });
  });

  return router;
}
