// What the dispatcher's rules need of the world: model/ and clients/ implement these, start/ wires them.
import type { RequestOptions } from 'node:http';
import type { DueItem } from '@postbus/db';
import type { AttemptDoc, DeliveryDoc, DuePayload, EndpointDoc } from './records';

/** What a deletion of deliveries took away: the deliveries, and their attempts. */
export interface DeliveriesDeleted {
  deliveries: number;
  attempts: number;
}

/** The queue of due attempts (DueQueue): an entry per delivery with an attempt to make, claimed under a lease. */
export interface DueAttempts {
  schedule(deliveryId: string, dueAt: Date, payload: DuePayload): Promise<void>;
  scheduleMany(items: Array<{ id: string; dueAt: Date; payload: DuePayload }>): Promise<void>;
  /** The delivery's queued attempt, if any. */
  entry(deliveryId: string): Promise<DuePayload | null>;
  claimDue(limit: number, leaseMs: number): Promise<Array<DueItem<DuePayload>>>;
  /** Takes the delivery off the queue. */
  done(deliveryId: string): Promise<void>;
}

/** The deliveries, their attempt logs and the due queue (model/delivery.repository.ts: DeliveryStore). */
export interface DeliveryLog {
  readonly due: DueAttempts;
  /** Stores new deliveries; returns those that need a first attempt (a redelivered event's were stored, and maybe attempted, before). */
  add(deliveries: DeliveryDoc[]): Promise<DeliveryDoc[]>;
  delivery(id: string): Promise<DeliveryDoc | null>;
  recordAttempt(attempt: AttemptDoc): Promise<void>;
  /** A delivery's attempts, in attempt order. */
  attemptsOf(deliveryId: string): Promise<AttemptDoc[]>;
  /**
   * Deletes the deliveries on a person's list written up to `before`, and later ones that `concerns`
   * confirms; `afterChunk` runs after each chunk, `erased` holds what this erasure deleted already.
   */
  erasePerson(
    list: string,
    before: Date,
    concerns: (delivery: DeliveryDoc) => boolean,
    afterChunk?: () => Promise<void>,
    erased?: Set<string>,
  ): Promise<DeliveriesDeleted>;
  /** Deletes every delivery created before `cutoff`, with its attempts. */
  purgeOlderThan(cutoff: Date): Promise<DeliveriesDeleted>;
}

/** The webhook endpoints, as deliveries find and use them (model/endpoint.repository.ts: EndpointStore). */
export interface EndpointDirectory {
  /** Enabled endpoints of this client (and project) subscribed to this event type. */
  matching(clientId: string, projectId: string | null, type: string): Promise<EndpointDoc[]>;
  cachedById(id: string): Promise<EndpointDoc | null>;
  /** The endpoint's secrets that sign now, in clear. */
  signingSecrets(endpoint: EndpointDoc): string[];
  disable(id: string, reason: string): Promise<void>;
}

/** What the projection knows of a project: its owner, that it was deleted, or nothing yet. */
export type ProjectOwner = { clientId: string } | 'deleted' | undefined;

/** Which client owns each project (model/project.repository.ts: ProjectOwners): events name a project, endpoints belong to a client. */
export interface ProjectOwnerLookup {
  ownerOf(projectId: string): Promise<ProjectOwner>;
}

/** The retention's claims on its intervals, so that one instance purges per interval (model/retention-run.repository.ts: RetentionRuns). */
export interface RetentionClaims {
  /** Claims interval `slot` at `at`; false when another instance claimed it first. */
  claim(slot: number, at: Date): Promise<boolean>;
  forget(slot: number): Promise<void>;
}

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  /** The first bytes of the body. */
  response: string | null;
  error: string | null;
  /** Seconds, from a Retry-After header. */
  retryAfterSeconds: number | null;
}

/** Which headers sign a delivery: Standard Webhooks' `webhook-*`, or Svix's `svix-*` (the same scheme under Resend's names). */
export type SignatureHeaders = 'standard-webhooks' | 'svix';

export interface SendOptions {
  url: string;
  webhookId: string;
  /** Sent as Postbus-Attempt (1 for the first), so a receiver can tell retries apart. */
  attempt: number;
  payload: string;
  /** Every secret that signs now: one signature each in webhook-signature (rotation overlap). */
  secrets: string[];
  /** The headers that carry the id, time and signatures (the delivery's format picks them). */
  signatureHeaders: SignatureHeaders;
  timeoutMs: number;
  /** Resolves the host and refuses private addresses at connect time (see AddressPolicy). */
  lookup: RequestOptions['lookup'];
  /** Refuses, before connecting, an address written in the URL (never looked up; see AddressPolicy). */
  connectRefusal: (url: URL) => string | null;
}

/** The signed POST of one attempt (clients/webhook-sender.ts: send); never throws. */
export type WebhookSender = (options: SendOptions) => Promise<SendResult>;
