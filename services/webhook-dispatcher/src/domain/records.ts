// The records the dispatcher's rules read and write; model/ stores them as they are.
import type { WebhookFormat } from '@postbus/contracts';
import type { Sealed } from '@postbus/crypto';
import type { AttemptOutcome } from './delivery-status';

/** One event for one endpoint: written once, never updated; its `_id` is the `webhook-id`. */
export interface DeliveryDoc {
  _id: string;
  endpointId: string;
  clientId: string;
  eventId: string;
  eventType: string;
  /** The exact body every attempt sends (and signs). */
  payload: string;
  /** The format the payload is written in, which also picks the signature's headers; absent: standard. */
  format?: WebhookFormat;
  /** Whom the event is about, kept beside a payload in another format (a standard one names them itself). */
  person?: DeliveryPerson;
  createdAt: Date;
}

/** Whom a webhook event is about, as Postbus's body names them: an erasure finds its deliveries by them. */
export interface DeliveryPerson {
  projectId: string;
  email: string | null;
  userId: string | null;
  /** When the event happened. */
  at?: string;
}

/** One attempt at a delivery, append-only: the delivery log. Its `_id` is `<deliveryId>:<attempt>` (attemptIdOf). */
export interface AttemptDoc {
  _id: string;
  deliveryId: string;
  endpointId: string;
  attempt: number;
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  /** The first bytes of the response body. */
  response: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  /** When the next attempt is due (a `retrying` attempt only; absent on attempts stored before it existed). */
  nextAttemptAt?: Date | null;
}

/** What the due queue holds for a delivery: its next attempt number; `manual` for a retry by hand (one attempt). */
export interface DuePayload extends Record<string, unknown> {
  attempt: number;
  endpointId: string;
  manual?: boolean;
}

export interface EndpointSecret {
  sealed: Sealed;
  createdAt: Date;
  /** Set on the previous secret when it is rotated: it keeps signing until then. */
  expiresAt: Date | null;
}

export interface EndpointDoc {
  _id: string;
  clientId: string;
  projectId: string | null;
  url: string;
  /** Event types, or ["*"] for all. */
  events: string[];
  description: string | null;
  enabled: boolean;
  /** How its deliveries are written; absent on endpoints made before formats existed: standard. */
  format?: WebhookFormat;
  /** Why the dispatcher disabled it (e.g. the receiver answered 410 Gone). */
  disabledReason: string | null;
  secrets: EndpointSecret[];
  createdAt: Date;
  updatedAt: Date;
}
