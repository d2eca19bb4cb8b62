import type { Logger } from '@postbus/logger';
import type { Subscriber, SubscriberStore } from './ports';
import type { StatusEvent, StatusSource } from './model';
import { notificationMail, type NotificationMail } from './notification-mail';
import type { NotificationContent, NotificationSenders } from './notification-outbox';
import { webhookOutcome } from './notification-outbox';
import { webhookPayload } from './webhook-payload';

/** A subscriber as notifications name it: their address and secret are read when a notification goes. */
export type SubscriberRef = Pick<Subscriber, 'id' | 'kind'>;

/** The mails the status service sends (`clients/status-mailer.ts`, over its own SMTP relay). */
export interface StatusMail {
  sendConfirmation(to: string, confirmUrl: string): Promise<void>;
  send(to: string, mail: NotificationMail): Promise<void>;
  close(): void;
}

/** The notification outbox as the notifier uses it (`NotificationOutbox`). */
export interface Outbox {
  /** Takes up what a previous run left pending. */
  resume(): Promise<void>;
  enqueue(subscriberId: string, content: NotificationContent): Promise<void>;
  stop(): Promise<void>;
}

/** The confirmed subscribers last read, kept for a database outage (`model/last-read-subscribers.repository.ts`). */
export interface LastRead {
  /** Resolves once what was kept has been read (or could not be). */
  readonly loaded: Promise<void>;
  /** The subscribers last read; undefined when none were read yet. */
  get(): SubscriberRef[] | undefined;
  remember(subscribers: Subscriber[]): Promise<void>;
}

export interface NotifierOptions {
  subscribers: SubscriberStore;
  /** The page's public address, without a trailing slash (links in mails and webhook bodies). */
  baseUrl: string;
  /** The unsubscribe link a notification carries. */
  unsubscribeUrl: (subscriber: Pick<Subscriber, 'id'>) => string;
  outbox: Outbox;
  /** Undefined without STATUS_SMTP_URL: then no mail is sent (and email subscription is refused). */
  mailer: StatusMail | undefined;
  lastRead: LastRead;
  /** While the subscribers cannot be read (the database is down), notifications wait this long between tries; 5 s by default. */
  lookupRetryMs?: number | undefined;
  logger?: Logger | undefined;
}

/**
 * How the outbox sends one notification: a webhook by `post` (its status code, or null when there
 * was none), a mail by the mailer (failed, and retried on the schedule, when the service was started
 * without STATUS_SMTP_URL while mails were pending).
 */
export function notificationSenders(
  post: (subscriber: Subscriber, messageId: string, body: string) => Promise<number | null>,
  mailer: Pick<StatusMail, 'send'> | undefined,
): NotificationSenders {
  return {
    webhook: async (subscriber, messageId, body) => webhookOutcome(await post(subscriber, messageId, body)),
    email: async (subscriber, mail) => {
      if (!mailer) return 'failed';
      await mailer.send(subscriber.address, mail);
      return 'delivered';
    },
  };
}

/**
 * Tells the subscribers about the source's events, in order, one event at a time: webhooks about
 * every event, email subscribers about incidents and maintenance. Hands each notification to the
 * outbox (pending notifications and their retries, kept across restarts), sends the subscription
 * confirmations through the mailer, and falls back on the subscribers last read while the database
 * cannot be read. The outbox, the mailer and the file of the subscribers last read are given
 * (wired in `start/publishing.ts`); the notifier owns them from then on, and stops and closes them.
 */
export class Notifier {
  private readonly mailer: StatusMail | undefined;
  private readonly outbox: Outbox;
  private readonly lastRead: LastRead;
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
    this.pageName = source.snapshot().page.name;
    this.lookupRetryMs = options.lookupRetryMs ?? 5_000;
    this.mailer = options.mailer;
    this.outbox = options.outbox;
    this.lastRead = options.lastRead;
    this.pending = this.outbox.resume();
    this.removeListener = source.onEvent((event) => {
      // In order, one event at a time: a subscriber reads "resolved" after "investigating".
      this.pending = this.pending.then(() =>
        this.notify(event).catch((error: unknown) => {
          options.logger?.error('status notifications failed', { error: (error as Error).message });
        }),
      );
    });
  }

  /** Whether mails can be sent (there is an SMTP relay); without, email subscriptions are refused. */
  get sendsMail(): boolean {
    return this.mailer !== undefined;
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
