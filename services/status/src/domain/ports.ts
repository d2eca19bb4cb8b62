import type { CheckResult } from './model';

/**
 * What the status rules need from outside, declared here in the domain's own types: the
 * subscribers' store (`model/subscriber.repository.ts`, `model/deferred-subscriber.repository.ts`)
 * and the probes the monitor runs (`clients/probes/`). The other ports sit beside the code that
 * uses them: `OutboxStore` (`notification-outbox.ts`), `StatusMail` and `LastRead` (`notifier.ts`).
 */

/** Someone told about incidents and maintenance: an email address (after double opt-in) or a webhook URL. */
export interface Subscriber {
  id: string;
  kind: 'email' | 'webhook';
  /** The email address (lower case) or the webhook URL. An email address is PII: never log it. */
  address: string;
  /** Webhooks only: the Standard Webhooks signing secret (`whsec_…`). */
  secret: string | null;
  /** Null until the address confirmed (email); webhooks are confirmed when created. */
  confirmedAt: Date | null;
  createdAt: Date;
}

export type NewSubscriber = Omit<Subscriber, 'id' | 'createdAt'>;

/** A subscriber as listed to operators: never a secret. */
export type ListedSubscriber = Omit<Subscriber, 'secret'>;

/** Where subscribers live: the database in the service, memory in the tests and the preview. */
export interface SubscriberStore {
  /** Adds one, or returns the existing subscriber of that kind and address (subscribing twice is one subscription). */
  add(subscriber: NewSubscriber, at: Date): Promise<Subscriber>;
  findById(id: string): Promise<Subscriber | null>;
  confirm(id: string, at: Date): Promise<void>;
  /** True when there was one to remove. */
  remove(id: string): Promise<boolean>;
  /** Everyone who should get notifications now. */
  listConfirmed(): Promise<Subscriber[]>;
  /** Every subscriber, confirmed or not, oldest first, without secrets (the operator's list, `http/subscriber-admin.ts`). */
  list(): Promise<ListedSubscriber[]>;
  /** How many subscribers there are, confirmed or not. */
  count(): Promise<number>;
  /** Removes the subscribers still unconfirmed that were created before `before`; how many went. */
  removeUnconfirmed(before: Date): Promise<number>;
  /**
   * Claims the sending of a confirmation mail to an unconfirmed subscriber at `at`: true unless one
   * was claimed after `since` (or the subscriber is confirmed or gone). One claim wins however many
   * instances ask at once, and the claim outlives a restart.
   */
  claimConfirmation(id: string, at: Date, since: Date): Promise<boolean>;
}

/** A component's verdict, or that it cannot be judged now (e.g. the lag while Kafka is down). */
export type ProbeOutcome = CheckResult | { componentId: string; at: Date; unknown: string };

/** One automatic check, run on its own pace by the `Monitor`; it never throws (a failure is a verdict). */
export interface Probe {
  name: string;
  componentIds: string[];
  intervalMs: number;
  run(): Promise<ProbeOutcome[]>;
  close?(): Promise<void>;
}
