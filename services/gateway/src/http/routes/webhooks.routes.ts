import {
  CreateWebhookRequest,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  DeliveryRetryAccepted,
  UpdateWebhookRequest,
  Webhook,
  WebhookIdParam,
  WebhookList,
  WebhookTestAccepted,
  WebhookWithSecret,
} from '@postbus/contracts';
import type { WebhooksClient } from '../../clients/webhooks-client';
import { defineRoute, type RouteSpec } from '../route';

export interface WebhookRouteDeps {
  webhooksApi: WebhooksClient;
  /** Resolves when the project exists and belongs to the client; throws NotFoundError otherwise. */
  assertProject: (clientId: string, projectId: string) => Promise<void>;
}

const TAG = 'Webhooks';
const DISPATCHER_DOWN = { 503: { description: 'The webhooks service did not answer (see Retry-After)' } };
const NOT_FOUND = { 404: { description: "No such webhook (or another client's)" } };

/** Webhook endpoints and their delivery log, kept by the webhook dispatcher (scope full). */
export function webhookRoutes({ webhooksApi, assertProject }: WebhookRouteDeps): RouteSpec[] {
  const assertProjectOf = async (clientId: string, body: { project_id?: string | null }) => {
    if (body.project_id) await assertProject(clientId, body.project_id);
  };
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      summary: 'Create a webhook endpoint; its signing secret is shown only in this answer',
      tag: TAG,
      scope: 'full',
      answerHoldsSecret: true,
      body: CreateWebhookRequest,
      responses: {
        201: { description: 'The webhook with its secret (whsec_…)', schema: WebhookWithSecret },
        404: { description: "project_id names none of the client's projects" },
        422: {
          description:
            'The URL resolves to a private, loopback, link-local or otherwise internal address, or an event has no counterpart in the format',
        },
        ...DISPATCHER_DOWN,
      },
      handle: async ({ body, client }) => {
        await assertProjectOf(client.clientId, body);
        return { status: 201, body: await webhooksApi.create(client.clientId, body) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints, oldest first',
      tag: TAG,
      scope: 'full',
      responses: { 200: { description: 'The webhooks (never their secrets)', schema: WebhookList }, ...DISPATCHER_DOWN },
      handle: async ({ client }) => ({ status: 200, body: await webhooksApi.list(client.clientId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/:webhookId',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'getWebhook',
      summary: 'Get a webhook endpoint',
      tag: TAG,
      scope: 'full',
      params: WebhookIdParam,
      responses: { 200: { description: 'The webhook (never its secrets)', schema: Webhook }, ...NOT_FOUND, ...DISPATCHER_DOWN },
      handle: async ({ params, client }) => ({ status: 200, body: await webhooksApi.webhook(client.clientId, params.webhookId) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/webhooks/:webhookId',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'updateWebhook',
      summary: 'Change a webhook endpoint (enabled: true turns one the service disabled back on)',
      tag: TAG,
      scope: 'full',
      params: WebhookIdParam,
      body: UpdateWebhookRequest,
      responses: {
        200: { description: 'The changed webhook', schema: Webhook },
        ...NOT_FOUND,
        422: { description: 'The new URL resolves to an internal address, or an event has no counterpart in the format' },
        ...DISPATCHER_DOWN,
      },
      handle: async ({ params, body, client }) => {
        await assertProjectOf(client.clientId, body);
        return { status: 200, body: await webhooksApi.update(client.clientId, params.webhookId, body) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/:webhookId',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      tag: TAG,
      scope: 'full',
      params: WebhookIdParam,
      responses: { 204: { description: 'Deleted' }, ...NOT_FOUND, ...DISPATCHER_DOWN },
      handle: async ({ params, client }) => {
        await webhooksApi.delete(client.clientId, params.webhookId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/:webhookId/rotate-secret',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'rotateWebhookSecret',
      summary: 'Give a webhook a new signing secret; the previous one keeps signing alongside it for a while',
      tag: TAG,
      scope: 'full',
      answerHoldsSecret: true,
      params: WebhookIdParam,
      responses: { 200: { description: 'The webhook with its new secret', schema: WebhookWithSecret }, ...NOT_FOUND, ...DISPATCHER_DOWN },
      handle: async ({ params, client }) => ({ status: 200, body: await webhooksApi.rotateSecret(client.clientId, params.webhookId) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/:webhookId/deliveries',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'listWebhookDeliveries',
      summary: 'List the deliveries of a webhook, newest first, with every attempt',
      tag: TAG,
      scope: 'full',
      params: WebhookIdParam,
      query: DeliveryListQuery,
      responses: {
        200: { description: 'One page of deliveries; pass next_cursor as cursor for the next one', schema: DeliveryList },
        ...NOT_FOUND,
        ...DISPATCHER_DOWN,
      },
      handle: async ({ params, query, client }) => ({
        status: 200,
        body: await webhooksApi.deliveries(client.clientId, params.webhookId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/:webhookId/deliveries/:deliveryId/retry',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'retryWebhookDelivery',
      summary: 'Try a failed delivery again (one attempt, now)',
      tag: TAG,
      scope: 'full',
      params: DeliveryParams,
      responses: {
        202: { description: 'The attempt is scheduled', schema: DeliveryRetryAccepted },
        ...NOT_FOUND,
        409: { description: 'The delivery is still pending or succeeded' },
        ...DISPATCHER_DOWN,
      },
      handle: async ({ params, client }) => ({
        status: 202,
        body: await webhooksApi.retry(client.clientId, params.webhookId, params.deliveryId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/:webhookId/test',
      tenant: { keptBy: 'webhook-dispatcher', param: 'webhookId' },
      operationId: 'testWebhook',
      summary: 'Send a webhook.test event to the endpoint',
      tag: TAG,
      scope: 'full',
      params: WebhookIdParam,
      responses: {
        202: { description: 'The test delivery is scheduled; follow it in the deliveries', schema: WebhookTestAccepted },
        ...NOT_FOUND,
        ...DISPATCHER_DOWN,
      },
      handle: async ({ params, client }) => ({ status: 202, body: await webhooksApi.test(client.clientId, params.webhookId) }),
    }),
  ];
}
