import { randomBytes } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import type { Router } from 'express';
import { AddressPolicy, every as repeatEvery, parseAllowedHost, type Teardown } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import { subscriptionLimits, type StatusConfig } from '../config';
import { StatusMailer } from '../clients/status-mailer';
import { postNotification } from '../clients/webhook-sender';
import type { StatusSource } from '../domain/model';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, NotificationOutbox } from '../domain/notification-outbox';
import { Notifier, notificationSenders } from '../domain/notifier';
import type { SubscriberStore } from '../domain/ports';
import type { StatusEngine } from '../domain/status-engine';
import type { SubscriptionLimits } from '../domain/subscription-limits';
import { SubscriptionTokens } from '../domain/subscription-tokens';
import { Subscriptions } from '../domain/subscriptions';
import { publicRouter } from '../http/public-router';
import { LastReadSubscribers } from '../model/last-read-subscribers.repository';
import { OutboxFile, outboxPathFor } from '../model/outbox-file';
import type { Stores } from './stores';

/** STATUS_WEBHOOK_ALLOWED_HOSTS as a list; a bad entry throws, naming the setting. */
export function allowedWebhookHosts(config: StatusConfig): string[] {
  const hosts = config.STATUS_WEBHOOK_ALLOWED_HOSTS.split(',').filter((entry) => entry.trim() !== '');
  for (const entry of hosts) parseAllowedHost(entry, 'STATUS_WEBHOOK_ALLOWED_HOSTS');
  return hosts;
}

/**
 * The public face and the notifications as the service runs them: over the engine, with the
 * subscribers in its database, the pending notifications in a file beside the snapshot file, and
 * mail through STATUS_SMTP_URL when it is set.
 */
export function startPublishing(
  config: StatusConfig,
  logger: Logger,
  { engine, stores, publicUrl, webhookHosts }: { engine: StatusEngine; stores: Stores; publicUrl: string; webhookHosts: string[] },
  teardown: Teardown,
): Publishing {
  const publishing = statusPublishing(engine, {
    baseUrl: publicUrl,
    ...(config.STATUS_OPERATOR_TOKEN ? { operatorToken: config.STATUS_OPERATOR_TOKEN } : {}),
    subscribers: stores.subscribers,
    tokenSecret: config.STATUS_SUBSCRIPTION_SECRET || randomBytes(32).toString('base64url'),
    ...(config.STATUS_SMTP_URL ? { smtpUrl: config.STATUS_SMTP_URL } : {}),
    ...(config.STATUS_MAIL_FROM ? { mailFrom: config.STATUS_MAIL_FROM } : {}),
    allowPrivateWebhooks: config.STATUS_WEBHOOK_ALLOW_PRIVATE,
    allowedWebhookHosts: webhookHosts,
    limits: subscriptionLimits(config),
    outboxFile: outboxPathFor(config.STATUS_SNAPSHOT_FILE),
    logger,
  });
  // Stopped before the database closes (`openStores` registered that earlier): the notifications under way still read their subscribers.
  teardown.add(() => publishing.stop());
  return publishing;
}

export interface PublishingOptions {
  /** The page's public address, e.g. `https://status.example.com` (links in pages, feeds and mails). */
  baseUrl: string;
  /** Unlocks the operator view; without it there is none. */
  operatorToken?: string;
  subscribers: SubscriberStore;
  /** Signs the confirm and unsubscribe links. */
  tokenSecret: string;
  /** STATUS_SMTP_URL; without it email subscription is refused (503). */
  smtpUrl?: string;
  mailFrom?: string;
  /** Admit webhooks to every address and port, private and loopback included (tests, closed networks). */
  allowPrivateWebhooks?: boolean;
  /**
   * Hosts a webhook may name although they are, or resolve to, private addresses, and on ports
   * other than 80 and 443: `host` (every port), `host:port` or `host:first-last`.
   */
  allowedWebhookHosts?: string[];
  /** Resolves webhook hosts (dns.lookup by default; tests pass a table). */
  webhookResolver?: typeof dnsLookup;
  /** Subscription rates, the size of the list, unconfirmed expiry and confirmation resends; DEFAULT_SUBSCRIPTION_LIMITS for what is not given. */
  limits?: Partial<SubscriptionLimits>;
  /** How often unconfirmed subscribers past their time are removed; a quarter of that time, at most 10 minutes, by default. */
  sweepIntervalMs?: number;
  /** Milliseconds before each attempt of a notification (webhook or mail); Standard Webhooks' schedule by default. */
  webhookRetryScheduleMs?: number[];
  /** Where pending notifications and their retries are kept across restarts; in memory only without it. */
  outboxFile?: string;
  /** While the subscribers cannot be read (the database is down), notifications wait this long between tries; 5 s by default. */
  lookupRetryMs?: number;
  /** How long a confirmation link works; as long as an unconfirmed subscriber is kept by default, and never longer. */
  confirmTtlMs?: number;
  logger?: Logger;
}

export type Publishing = Router & {
  /** Stops listening to the source and sending (what is pending stays in the outbox file), closes the SMTP transport. */
  stop(): Promise<void>;
  /** Resolves when the notifications of every event so far have been handed on, and every confirmation mail started so far has been sent or has failed (tests wait on it). */
  idle(): Promise<void>;
};

/**
 * The public face wired together: the routes (`http/public-router.ts`) over the subscription rules
 * (`domain/subscriptions.ts`), and the notifier (`domain/notifier.ts`) with its outbox
 * (`domain/notification-outbox.ts`, kept in `model/outbox-file.ts`), the SMTP mailer
 * (`clients/status-mailer.ts`), the webhook sender (`clients/webhook-sender.ts`) and the subscribers
 * last read (`model/last-read-subscribers.repository.ts`); plus the timer that removes unconfirmed
 * subscribers past their time. Mounted at the root; `stop()` on shutdown, before the database closes.
 */
export function statusPublishing(source: StatusSource, options: PublishingOptions): Publishing {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { logger } = options;
  const tokens = new SubscriptionTokens(options.tokenSecret);
  const policy = options.allowPrivateWebhooks
    ? undefined
    : new AddressPolicy((options.allowedWebhookHosts ?? []).map((h) => h.trim()).filter(Boolean), options.webhookResolver, {
        setting: 'STATUS_WEBHOOK_ALLOWED_HOSTS',
      });
  const mailer = options.smtpUrl
    ? new StatusMailer({
        smtpUrl: options.smtpUrl,
        from: options.mailFrom ?? `status@${new URL(baseUrl).hostname}`,
        pageName: source.snapshot().page.name,
      })
    : undefined;
  const lookupRetryMs = options.lookupRetryMs ?? 5_000;
  const outbox = new NotificationOutbox({
    subscribers: options.subscribers,
    senders: notificationSenders((subscriber, messageId, body) => postNotification(policy, subscriber, messageId, body), mailer),
    retryScheduleMs: options.webhookRetryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
    lookupRetryMs,
    ...(options.outboxFile ? { file: new OutboxFile(options.outboxFile) } : {}),
    ...(logger ? { logger } : {}),
  });
  const notifier = new Notifier(source, {
    subscribers: options.subscribers,
    baseUrl,
    // Called on events only, once everything here is built.
    unsubscribeUrl: (subscriber): string => subscriptions.unsubscribeUrl(subscriber),
    outbox,
    mailer,
    lastRead: new LastReadSubscribers(options.outboxFile, logger),
    lookupRetryMs,
    logger,
  });
  const subscriptions = new Subscriptions({
    subscribers: options.subscribers,
    baseUrl,
    tokens,
    confirmations: notifier,
    policy,
    limits: options.limits,
    confirmTtlMs: options.confirmTtlMs,
    logger,
  });

  const router = publicRouter(source, {
    baseUrl,
    operatorToken: options.operatorToken,
    subscriptions,
    subscribers: options.subscribers,
    logger,
  }) as Publishing;

  /** Unconfirmed subscribers past their time are removed by this timer: FerretDB has no TTL indexes. */
  const sweeper = repeatEvery(
    options.sweepIntervalMs ?? subscriptions.defaultSweepIntervalMs(),
    async () => {
      const removed = await subscriptions.removeExpired();
      if (removed > 0) logger?.info('unconfirmed status subscribers expired', { count: removed });
    },
    {
      onError: (error) => logger?.debug('unconfirmed status subscribers could not be swept now', { error: (error as Error).message }),
    },
  );

  router.idle = () => notifier.idle();
  router.stop = () => notifier.stop(() => sweeper.stop());
  return router;
}
