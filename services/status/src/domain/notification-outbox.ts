import { randomUUID } from 'node:crypto';
import type { Logger } from '@postbus/logger';
import type { Subscriber, SubscriberStore } from './ports';
import type { NotificationMail } from './notification-mail';

/** Standard Webhooks' schedule, in ms: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h. Tests pass a shorter one. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

/** What a notification carries: a webhook's signed body, or a mail as rendered. */
export type NotificationContent = { kind: 'webhook'; body: string } | { kind: 'email'; mail: NotificationMail };

/**
 * A notification waiting to go out. It names its subscriber, not their address or secret: both
 * are read when it is sent, so the outbox file holds neither, and an unsubscribe ends it.
 */
export type PendingNotification = NotificationContent & {
  /** The same on every attempt: the `webhook-id` receivers dedupe on. */
  id: string;
  subscriberId: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (epoch ms). */
  dueAt: number;
};

/** How an attempt ended: `gone` is a receiver asking to be unsubscribed (410). */
export type AttemptOutcome = 'delivered' | 'gone' | 'failed';

/** Why an attempt failed, for the logs: a status code, or an error's code (never its message, which may quote an address). */
export type FailureReason = number | string | null;

/** How a webhook attempt ended, by the receiver's status code (null: no answer). */
export function webhookOutcome(status: number | null): AttemptOutcome | { failed: FailureReason } {
  return status !== null && status >= 200 && status < 300 ? 'delivered' : status === 410 ? 'gone' : { failed: status };
}

/** Where pending notifications are kept across restarts (`model/outbox-file.ts`). */
export interface OutboxStore {
  readonly path: string;
  /** What was pending, or undefined when nothing was kept yet. */
  read(): Promise<PendingNotification[] | undefined>;
  write(pending: PendingNotification[]): Promise<void>;
}

export interface NotificationSenders {
  webhook(subscriber: Subscriber, messageId: string, body: string): Promise<AttemptOutcome | { failed: FailureReason }>;
  email(subscriber: Subscriber, mail: NotificationMail): Promise<AttemptOutcome>;
}

export interface NotificationOutboxOptions {
  subscribers: SubscriberStore;
  senders: NotificationSenders;
  /** Milliseconds before each attempt: attempt n waits schedule[n] after the one before. */
  retryScheduleMs: number[];
  /** Where pending notifications outlive a restart; without one they live in memory only (tests). */
  file?: OutboxStore;
  /** Attempts in flight at most (8): thousands of mail subscribers must not open thousands of SMTP connections at once. */
  concurrency?: number;
  /** While the subscriber cannot be read (the database is down), a notification waits this long, spending no attempt. */
  lookupRetryMs?: number;
  logger?: Logger;
  now?: () => number;
}

const jitter = (ms: number) => (ms === 0 ? 0 : Math.round(ms * (0.9 + Math.random() * 0.2)));

/**
 * Status notifications to subscribers, sent and retried on the schedule (±10 % jitter) until
 * delivered, the subscriber is gone or the schedule runs out. What is pending is kept in a file
 * rewritten on every change, so a restart resumes the retries where they were; a notification
 * interrupted mid-attempt goes again, with the same id. The status service keeps this file beside
 * its snapshot (not in its database) so that notifications go out while the database is down.
 */
export class NotificationOutbox {
  private readonly pending = new Map<string, PendingNotification>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** Due, waiting for a free slot, in the order they fell due. */
  private readonly ready: PendingNotification[] = [];
  private writing: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: NotificationOutboxOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Takes up what a previous run left pending. */
  async resume(): Promise<void> {
    let saved: PendingNotification[] | undefined;
    try {
      saved = await this.options.file?.read();
    } catch (error) {
      this.options.logger?.error('the notification outbox could not be read; its notifications are not sent', {
        error: (error as Error).message,
        path: this.options.file?.path,
      });
    }
    for (const notification of saved ?? []) {
      if (this.pending.has(notification.id)) continue;
      this.pending.set(notification.id, notification);
      this.schedule(notification);
    }
    if (saved?.length) this.options.logger?.info('pending status notifications resumed', { count: saved.length });
  }

  /** Queues a notification to one subscriber; resolves once it is kept (in the file, when there is one). */
  async enqueue(subscriberId: string, content: NotificationContent): Promise<void> {
    if (this.stopped) return;
    const notification: PendingNotification = { ...content, id: `msg_${randomUUID()}`, subscriberId, attempts: 0, dueAt: this.now() };
    this.pending.set(notification.id, notification);
    await this.save();
    this.schedule(notification);
  }

  /** How many notifications have not ended yet (tests wait on it). */
  size(): number {
    return this.pending.size;
  }

  /** Stops sending: attempts in flight end and are recorded, and what is pending stays in the file for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.running]);
    await this.writing;
  }

  private schedule(notification: PendingNotification): void {
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(notification.id);
        this.ready.push(notification);
        this.pump();
      },
      Math.max(0, notification.dueAt - this.now()),
    );
    this.timers.set(notification.id, timer);
  }

  private pump(): void {
    while (!this.stopped && this.ready.length > 0 && this.running.size < (this.options.concurrency ?? 8)) {
      const run: Promise<void> = this.attempt(this.ready.shift()!)
        .catch((error: unknown) => {
          this.options.logger?.warn('a status notification attempt failed to run', { error: (error as Error).message });
        })
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  private async attempt(notification: PendingNotification): Promise<void> {
    const { subscribers, senders, retryScheduleMs, logger } = this.options;
    const log = { subscriberId: notification.subscriberId, messageId: notification.id, kind: notification.kind };
    let subscriber: Subscriber | null;
    try {
      subscriber = await subscribers.findById(notification.subscriberId);
    } catch {
      notification.dueAt = this.now() + (this.options.lookupRetryMs ?? 5_000);
      return this.schedule(notification);
    }
    // Unsubscribed since (or a webhook whose secret cannot be opened: unsigned, its receiver would refuse it).
    if (!subscriber || (subscriber.kind === 'webhook' && !subscriber.secret)) return this.end(notification);
    let outcome: AttemptOutcome;
    let reason: FailureReason;
    try {
      const result =
        notification.kind === 'webhook'
          ? await senders.webhook(subscriber, notification.id, notification.body)
          : await senders.email(subscriber, notification.mail);
      [outcome, reason] = typeof result === 'string' ? [result, null] : ['failed', result.failed];
    } catch (error) {
      outcome = 'failed';
      const { responseCode, code } = error as { responseCode?: number; code?: string };
      reason = responseCode ?? code ?? null;
    }
    if (outcome === 'gone') {
      logger?.info('a status webhook receiver answered 410 Gone; it is unsubscribed', log);
      await subscribers.remove(subscriber.id).catch(() => undefined); // its next notification finds it gone, or tries again
    }
    if (outcome !== 'failed') return this.end(notification);
    notification.attempts++;
    const wait = retryScheduleMs[notification.attempts];
    if (wait === undefined) {
      logger?.warn('a status notification gave up', { ...log, attempts: notification.attempts, reason });
      return this.end(notification);
    }
    logger?.info('a status notification failed; it is retried', { ...log, attempts: notification.attempts, reason });
    notification.dueAt = this.now() + jitter(wait);
    await this.save();
    this.schedule(notification);
  }

  private async end(notification: PendingNotification): Promise<void> {
    this.pending.delete(notification.id);
    await this.save();
  }

  /** Rewrites the file with what is pending now; resolves once a write that includes this change is done. */
  private save(): Promise<void> {
    const file = this.options.file;
    if (!file) return Promise.resolve();
    this.dirty = true;
    this.writing ??= (async () => {
      while (this.dirty) {
        this.dirty = false;
        try {
          await file.write([...this.pending.values()]);
        } catch (error) {
          this.options.logger?.error('the notification outbox could not be written', { error: (error as Error).message, path: file.path });
        }
      }
      this.writing = undefined;
    })();
    return this.writing;
  }
}
