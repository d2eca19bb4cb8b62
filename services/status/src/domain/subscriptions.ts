import { randomBytes } from 'node:crypto';
import { AppError, ConflictError, TooManyRequestsError, ValidationError } from '@postbus/errors';
import type { AddressPolicy } from '@postbus/http/address-policy';
import type { Logger } from '@postbus/logger';
import type { Subscriber, SubscriberStore } from './ports';
import { clientKey, DEFAULT_SUBSCRIPTION_LIMITS, TokenBuckets, type SubscriptionLimits } from './subscription-limits';
import type { SubscriptionTokens } from './subscription-tokens';
import { webhookUrlProblems } from './webhook-url';

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/** Who sends the confirmation mails (the `Notifier`, through the SMTP mailer). */
export interface Confirmations {
  /** False without an SMTP relay: then email subscription is refused. */
  readonly sendsMail: boolean;
  /** Not awaited: the answer must not tell a first subscription from a repeat by its time. */
  sendConfirmation(subscriberId: string, address: string, confirmUrl: string): void;
}

export interface SubscriptionsOptions {
  subscribers: SubscriberStore;
  /** The page's public address, without a trailing slash (confirm and unsubscribe links). */
  baseUrl: string;
  /** Signs the confirm and unsubscribe links. */
  tokens: SubscriptionTokens;
  confirmations: Confirmations;
  /** Where webhooks may be sent; undefined admits every address and port. */
  policy: AddressPolicy | undefined;
  /** DEFAULT_SUBSCRIPTION_LIMITS for what is not given. */
  limits?: Partial<SubscriptionLimits> | undefined;
  /** How long a confirmation link works; as long as an unconfirmed subscriber is kept by default, and never longer. */
  confirmTtlMs?: number | undefined;
  logger?: Logger | undefined;
  now?: () => number;
}

/** A webhook subscribed: its secret, shown this once. */
export interface WebhookSubscribed {
  id: string;
  webhook: string;
  secret: string;
  unsubscribe_url: string;
}

/**
 * The rules of subscribing: email addresses with double opt-in, webhooks with their URL checked and
 * a secret shown once, rates per client and for everyone, the size of the list, unconfirmed
 * subscribers' time, the signed confirm and unsubscribe links. The HTTP routes (`http/public-router.ts`)
 * parse requests and shape answers around these.
 */
export class Subscriptions {
  readonly limits: SubscriptionLimits;
  private readonly confirmTtlMs: number;
  private readonly perClient: TokenBuckets;
  private readonly everyone: TokenBuckets;
  private readonly now: () => number;

  constructor(private readonly options: SubscriptionsOptions) {
    this.limits = { ...DEFAULT_SUBSCRIPTION_LIMITS, ...options.limits };
    this.confirmTtlMs = Math.min(options.confirmTtlMs ?? this.limits.unconfirmedTtlMs, this.limits.unconfirmedTtlMs);
    this.now = options.now ?? Date.now;
    this.perClient = new TokenBuckets(this.limits.perClient, this.limits.windowMs, this.now);
    this.everyone = new TokenBuckets(this.limits.global, this.limits.windowMs, this.now);
  }

  /** The unsubscribe link of a subscriber (in every notification, and shown to a webhook's creator). */
  unsubscribeUrl(subscriber: Pick<Subscriber, 'id'>): string {
    return `${this.options.baseUrl}/subscriptions/unsubscribe?token=${this.options.tokens.issue('unsubscribe', subscriber.id)}`;
  }

  /** A 429 when this client address, or everyone together, has subscribed as often as the window allows. */
  overRate(clientAddress: string | undefined): TooManyRequestsError | undefined {
    const { limits } = this;
    const mine = this.perClient.take(clientKey(clientAddress));
    const wait = mine > 0 ? mine : this.everyone.take('all');
    if (wait === 0) return undefined;
    const seconds = Math.ceil(wait / 1000);
    return new TooManyRequestsError(
      mine > 0
        ? `An address may subscribe ${limits.perClient} times in ${minutes(limits.windowMs)}; retry after ${seconds} s.`
        : `This page takes ${limits.global} subscriptions in ${minutes(limits.windowMs)} from everyone together; retry after ${seconds} s.`,
      seconds,
    );
  }

  /**
   * Starts an email subscription: a confirmation mail, and nothing else until it is confirmed. The
   * answer is the same whether the address was new, waiting for its confirmation (and mailed
   * again only once `confirmationResendMs` has passed, so the form cannot flood a mailbox) or
   * confirmed already. `pointer` names the field in a validation problem.
   */
  async subscribeEmail(raw: unknown, pointer: string): Promise<void> {
    const { subscribers, confirmations } = this.options;
    const address = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (address.length > 254 || !EMAIL.test(address))
      throw new ValidationError('The email address is invalid.', [{ pointer, message: 'is not an email address' }]);
    if (!confirmations.sendsMail)
      throw new AppError(
        503,
        'email-subscriptions-unavailable',
        'Email subscriptions are not available',
        'This page does not offer email subscriptions.',
      );
    await this.assertRoom();
    const now = new Date(this.now());
    const candidate = { kind: 'email' as const, address, secret: null, confirmedAt: null };
    let subscriber = await subscribers.add(candidate, now);
    if (this.isExpired(subscriber, now.getTime())) {
      await subscribers.remove(subscriber.id);
      subscriber = await subscribers.add(candidate, now);
    }
    if (subscriber.confirmedAt) return;
    const claimed = await subscribers.claimConfirmation(subscriber.id, now, new Date(now.getTime() - this.limits.confirmationResendMs));
    // Sent after the answer, not before (see Notifier.sendConfirmation).
    if (claimed) confirmations.sendConfirmation(subscriber.id, address, this.confirmUrl(subscriber.id));
  }

  /** Subscribes a webhook: its URL checked (port, scheme, and every address it names or resolves to), its secret shown once. */
  async subscribeWebhook(raw: unknown, pointer: string): Promise<WebhookSubscribed> {
    const { subscribers, policy, logger } = this.options;
    const { url, problems } = await webhookUrlProblems(typeof raw === 'string' ? raw : '', policy);
    if (!url)
      throw new ValidationError(
        'The webhook URL cannot be subscribed.',
        problems.map((message) => ({ pointer, message })),
      );
    await this.assertRoom();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const subscriber = await subscribers.add(
      { kind: 'webhook', address: url.toString(), secret, confirmedAt: new Date(this.now()) },
      new Date(this.now()),
    );
    // The secret is shown once, to whoever created the subscription; a second subscribe of the same URL does not get it.
    if (subscriber.secret !== secret) throw new ConflictError('already-subscribed', 'This webhook is already subscribed.');
    logger?.info('status webhook subscribed', { subscriberId: subscriber.id });
    return { id: subscriber.id, webhook: subscriber.address, secret, unsubscribe_url: this.unsubscribeUrl(subscriber) };
  }

  /** The subscriber a link's token names, when it is genuine, for this purpose and not expired. */
  verifyLink(token: string, purpose: 'confirm' | 'unsubscribe'): string | undefined {
    return this.options.tokens.verify(token, purpose, new Date(this.now()));
  }

  /** Confirms the email subscriber a confirm link names: false when the link is invalid or expired, or its subscriber gone or past its time. */
  async confirm(token: string): Promise<boolean> {
    const { subscribers, logger } = this.options;
    const id = this.verifyLink(token, 'confirm');
    let subscriber = id ? await subscribers.findById(id) : null;
    if (subscriber && this.isExpired(subscriber, this.now())) {
      await subscribers.remove(subscriber.id);
      subscriber = null;
    }
    if (!subscriber) return false;
    await subscribers.confirm(subscriber.id, new Date(this.now()));
    logger?.info('status email subscription confirmed', { subscriberId: subscriber.id });
    return true;
  }

  /** Removes the subscriber an unsubscribe link names: false when the link is not valid. */
  async unsubscribe(token: string): Promise<boolean> {
    const { subscribers, logger } = this.options;
    const id = this.verifyLink(token, 'unsubscribe');
    if (!id) return false;
    await subscribers.remove(id);
    logger?.info('status subscriber unsubscribed', { subscriberId: id });
    return true;
  }

  /** Removes the unconfirmed subscribers past their time (FerretDB has no TTL indexes); how many went. */
  async removeExpired(): Promise<number> {
    return await this.options.subscribers.removeUnconfirmed(new Date(this.now() - this.limits.unconfirmedTtlMs));
  }

  /** How often `removeExpired` runs: a quarter of the unconfirmed time, at least 1 s, at most 10 minutes. */
  defaultSweepIntervalMs(): number {
    return Math.max(1_000, Math.min(this.limits.unconfirmedTtlMs / 4, 10 * 60_000));
  }

  private confirmUrl(subscriberId: string): string {
    const token = this.options.tokens.issue('confirm', subscriberId, this.confirmTtlMs, new Date(this.now()));
    return `${this.options.baseUrl}/subscriptions/confirm?token=${encodeURIComponent(token)}`;
  }

  /** Refuses a new subscription once the list holds as many as it keeps (whoever asks: the answer tells nothing about an address). */
  private async assertRoom(): Promise<void> {
    if ((await this.options.subscribers.count()) < this.limits.maxSubscribers) return;
    throw new ConflictError('subscriptions-full', 'This page has as many subscribers as it keeps; try again later.');
  }

  private isExpired(subscriber: Subscriber, now: number): boolean {
    return subscriber.confirmedAt === null && subscriber.createdAt.getTime() <= now - this.limits.unconfirmedTtlMs;
  }
}

const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.ceil(ms / 1000)} s`);
