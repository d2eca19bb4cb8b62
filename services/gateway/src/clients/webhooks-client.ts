import type {
  CreateWebhookRequest,
  DeliveryList,
  DeliveryListQuery,
  DeliveryRetryAccepted,
  UpdateWebhookRequest,
  Webhook,
  WebhookList,
  WebhookTestAccepted,
  WebhookWithSecret,
} from '@postbus/contracts';
import { ServiceUnavailableError } from '@postbus/errors';
import type { InternalTokens } from '@postbus/http';
import { InternalApiClient, type InternalReply } from './internal-api-client';

const clientPath = (clientId: string): string => `/internal/clients/${encodeURIComponent(clientId)}/webhooks`;
const webhookPath = (clientId: string, webhookId: string): string => `${clientPath(clientId)}/${encodeURIComponent(webhookId)}`;

/**
 * The webhook endpoints and their delivery log, managed by the webhook dispatcher (the owner of
 * that data) through its internal API. Its 404, 409 and 422 problems reach the client as they are.
 */
export class WebhooksClient extends InternalApiClient {
  constructor(baseUrl: string, tokens: InternalTokens, timeoutMs?: number) {
    super('webhooks', 'webhook-dispatcher', baseUrl, tokens, timeoutMs);
  }

  async create(clientId: string, body: CreateWebhookRequest): Promise<WebhookWithSecret> {
    return this.bodyOf(await this.send<WebhookWithSecret>('POST', clientPath(clientId), { body }));
  }

  async list(clientId: string): Promise<WebhookList> {
    return this.bodyOf(await this.send<WebhookList>('GET', clientPath(clientId)));
  }

  async webhook(clientId: string, webhookId: string): Promise<Webhook> {
    return this.bodyOf(await this.send<Webhook>('GET', webhookPath(clientId, webhookId)));
  }

  async update(clientId: string, webhookId: string, body: UpdateWebhookRequest): Promise<Webhook> {
    return this.bodyOf(await this.send<Webhook>('PATCH', webhookPath(clientId, webhookId), { body }));
  }

  async delete(clientId: string, webhookId: string): Promise<void> {
    await this.send('DELETE', webhookPath(clientId, webhookId));
  }

  async rotateSecret(clientId: string, webhookId: string): Promise<WebhookWithSecret> {
    return this.bodyOf(await this.send<WebhookWithSecret>('POST', `${webhookPath(clientId, webhookId)}/rotate-secret`));
  }

  async deliveries(clientId: string, webhookId: string, query: DeliveryListQuery): Promise<DeliveryList> {
    const { status, event_type, limit, cursor } = query;
    return this.bodyOf(
      await this.send<DeliveryList>('GET', `${webhookPath(clientId, webhookId)}/deliveries`, {
        query: { status, event_type, limit, cursor },
      }),
    );
  }

  async retry(clientId: string, webhookId: string, deliveryId: string): Promise<DeliveryRetryAccepted> {
    const path = `${webhookPath(clientId, webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/retry`;
    return this.bodyOf(await this.send<DeliveryRetryAccepted>('POST', path));
  }

  async test(clientId: string, webhookId: string): Promise<WebhookTestAccepted> {
    return this.bodyOf(await this.send<WebhookTestAccepted>('POST', `${webhookPath(clientId, webhookId)}/test`));
  }

  /** The body of a 2xx that must have one; a bodiless answer means the dispatcher is broken. */
  private bodyOf<T>(reply: InternalReply<T>): T {
    if (reply.body === undefined || reply.body === null) {
      throw new ServiceUnavailableError('The webhooks service could not answer; retry later.', 2);
    }
    return reply.body;
  }
}
