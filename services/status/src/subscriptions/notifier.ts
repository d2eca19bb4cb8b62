import type { AddressPolicy } from '@postbus/http';
import type { Logger } from '@postbus/logger';
import type { StatusEvent, StatusSource } from '../domain/model';
import { JsonFile } from '../engine/snapshot-file';
import { LastReadSubscribers, type SubscriberRef } from '../model/last-read-subscribers.repository';
import type { Subscriber, SubscriberStore } from '../model/subscriber.repository';
import { notificationMail, StatusMailer } from './email';
import { NotificationOutbox, type PendingNotification } from './outbox';
import { webhookPayload } from './payloads';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, postNotification } from './webhooks';

export interface NotifierOptions {
  subscribers: SubscriberStore;
  /** The page's public address, without a trailing slash (links in mails and webhook bodies). */
  baseUrl: string;
  /** The unsubscribe link a notification carries. */
  unsubscribeUrl: (subscriber: Pick<Subscriber, 'id'>) => string;
  /** Where webhooks may be sent; undefined admits every address and port. */
  policy: AddressPolicy | undefined;
  /** STATUS_SMTP_URL; without it no mail is sent. */
  smtpUrl?: string | undefined;
  mailFrom?: string | undefined;
  /** Milliseconds before each attempt of a notification (webhook or mail); Standard Webhooks' schedule by default. */
  retryScheduleMs?: number[] | undefined;
  /** Where pending notifications and their retries are kept across restarts; in memory only without it. */
  outboxFile?: string | undefined;
  /** While the subscribers cannot be read (the database is down), notifications wait this long between tries; 5 s by default. */
  lookupRetryMs?: number | undefined;
  logger?: Logger | undefined;
}

/** The outbox file beside the snapshot file: `…/status-snapshot.json` → `…/status-snapshot-outbox.json`. */
export const outboxPathFor = (snapshotFile: string): string => `${snapshotFile.replace(/\.json$/i, '')}-outbox.json`;

/**
 * Tells the subscribers about the source's events, in order, one event at a time: webhooks about
 * every event, email subscribers about incidents and maintenance. Owns the notification outbox
 * (pending notifications and their retries, kept across restarts), the SMTP mailer (which also
 * sends the subscription confirmations) and the file of the subscribers last read.
 */
export class Notifier {
  /** The SMTP mailer; undefined without STATUS_SMTP_URL (no email subscriptions then). */
  readonly mailer: StatusMailer | undefined;
  private readonly outbox: NotificationOutbox;
  private readonly lastRead: LastReadSubscribers;
  private readonly lookupRetryMs: number;
  private readonly pageName: string;
  private readonly confirmationsInFlight = new Set<Promise<void>>();
  private readonly removeListener: () => void;
  private pending: Promise<void>;
  private stopping = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly source: StatusSource,
    private readonly options: NotifierOptions,
  ) {
    const { baseUrl, policy } = options;
    this.pageName = source.snapshot().page.name;
    this.lookupRetryMs = options.lookupRetryMs ?? 5_000;
    const mailer = options.smtpUrl
      ? new StatusMailer({
          smtpUrl: options.smtpUrl,
          from: options.mailFrom ?? `status@${new URL(baseUrl).hostname}`,
          pageName: this.pageName,
        })
      : undefined;
    this.mailer = mailer;
    this.outbox = new NotificationOutbox({
      subscribers: options.subscribers,
      senders: {
        webhook: async (subscriber, messageId, body) => {
          const status = await postNotification(policy, subscriber, messageId, body);
          return status !== null && status >= 200 && status < 300 ? 'delivered' : status === 410 ? 'gone' : { failed: status };
        },
        email: async (subscriber, mail) => {
          if (!mailer) return 'failed'; // started without STATUS_SMTP_URL while mails were pending: retried on the schedule
          await mailer.send(subscriber.address, mail);
          return 'delivered';
        },
      },
      retryScheduleMs: options.retryScheduleMs ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
      lookupRetryMs: this.lookupRetryMs,
      ...(options.outboxFile ? { file: new JsonFile<PendingNotification[]>(options.outboxFile) } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.pending = this.outbox.resume();
    this.lastRead = new LastReadSubscribers(options.outboxFile, options.logger);
    this.removeListener = source.onEvent((event) => {
      // In order, one event at a time: a subscriber reads "resolved" after "investigating".
      this.pending = this.pending.then(() =>
        this.notify(event).catch((error: unknown) => {
          options.logger?.error('status notifications failed', { error: (error as Error).message });
        }),
      );
    });
  }

  /**
   * Sends a subscription's confirmation mail (none without the mailer). Not awaited by the caller: waiting
   * for the relay would make a first subscription of an address answer slower than a repeat, which
   * sends nothing, and tell the two apart.
   */
  sendConfirmation(subscriberId: string, address: string, confirmUrl: string): void {
    const { logger } = this.options;
    const mailer = this.mailer;
    if (!mailer) return;
    const sending: Promise<void> = mailer
      .sendConfirmation(address, confirmUrl)
      .then(() => void logger?.info('status email subscription requested', { subscriberId }))
      .catch((error: unknown) => {
        const { responseCode, code } = error as { responseCode?: number; code?: string };
        logger?.warn('a status confirmation mail could not be sent', { subscriberId, reason: responseCode ?? code ?? null });
      })
      .finally(() => this.confirmationsInFlight.delete(sending));
    this.confirmationsInFlight.add(sending);
  }

  /** Resolves when the notifications of every event so far have been handed on, and every confirmation mail started so far has been sent or has failed. */
  async idle(): Promise<void> {
    await this.pending;
    await Promise.all([...this.confirmationsInFlight]);
  }

  /**
   * Stops listening to the source at once (what was not handed to the outbox yet is not notified),
   * then waits for the confirmation mails and the notifications under way, stops sending (what is
   * pending stays in the outbox file) and closes the SMTP transport. `beforeClosing` is the caller's
   * own stopping, run once listening has stopped and before the mails under way are awaited.
   */
  async stop(beforeClosing?: () => Promise<void>): Promise<void> {
    this.removeListener();
    this.stopping = true;
    this.wakeUp?.();
    await beforeClosing?.();
    await Promise.all([...this.confirmationsInFlight]);
    await this.pending;
    await this.outbox.stop();
    this.mailer?.close();
  }

  /**
   * Everyone to notify. While the database cannot be read, the subscribers last read; with none
   * read yet (a start with the database down), this waits and tries again, holding the events after
   * it in order. Null once the notifier stops (what was not handed to the outbox yet is not notified).
   */
  private async confirmedSubscribers(): Promise<SubscriberRef[] | null> {
    const { logger } = this.options;
    await this.lastRead.loaded;
    for (let tries = 1; !this.stopping; tries++) {
      try {
        const subscribers = await this.options.subscribers.listConfirmed();
        await this.lastRead.remember(subscribers);
        return subscribers;
      } catch (error) {
        const lastRead = this.lastRead.get();
        if (tries === 1)
          logger?.warn('the subscribers cannot be read', {
            error: (error as Error).message,
            notified: lastRead ? 'the subscribers last read' : 'everyone, once the database answers',
          });
        if (lastRead) return lastRead;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.lookupRetryMs);
          this.wakeUp = () => (clearTimeout(timer), resolve());
        });
      }
    }
    return null;
  }

  private async notify(event: StatusEvent): Promise<void> {
    const { baseUrl } = this.options;
    const snapshot = this.source.snapshot();
    const subscribers = (await this.confirmedSubscribers()) ?? [];
    for (const subscriber of subscribers) {
      const unsubscribe = this.options.unsubscribeUrl(subscriber);
      if (subscriber.kind === 'webhook') {
        const payload = webhookPayload(event, snapshot, baseUrl, unsubscribe);
        if (payload) await this.outbox.enqueue(subscriber.id, { kind: 'webhook', body: JSON.stringify(payload) });
        continue;
      }
      // Email subscribers hear about incidents and maintenance, not every component flap.
      if (event.kind === 'component' || !this.mailer) continue;
      const item = event.kind === 'incident' ? event.incident : event.maintenance;
      const links = { incident: `${baseUrl}/incidents/${encodeURIComponent(item.id)}`, unsubscribe };
      await this.outbox.enqueue(subscriber.id, { kind: 'email', mail: notificationMail(this.pageName, item, event.update, links) });
    }
  }
}
