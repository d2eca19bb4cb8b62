// The public shapes of an endpoint and of a delivery with its attempts, as the internal API answers them.
import type { Delivery, Webhook } from '@postbus/contracts';
import { statusOf } from '../domain/delivery-status';
import type { AttemptDoc, DeliveryDoc, EndpointDoc } from '../domain/records';

export function toWebhook(e: EndpointDoc): Webhook {
  return {
    id: e._id,
    url: e.url,
    events: e.events,
    project_id: e.projectId,
    description: e.description,
    enabled: e.enabled,
    format: e.format ?? 'standard',
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
