import { createHash } from 'node:crypto';
import type { Publisher } from '@postbus/bus';
import { Topics, type CopyKind, type CopyReportEvent, type MessageEvent, type TimelineEventName } from '@postbus/contracts';
import { GroupCommit } from '@postbus/db/group-commit';
import { inParallel } from '@postbus/db/in-parallel';
import { KeyedSerializer } from '@postbus/db/keyed-serializer';
import type { Outcome } from './delivery/deliverer';
import { queuedEntry, summaryOf } from './message-view';
import { contentDoc } from './message-content';
import { deliveryEventId, engagementEventId } from './message-ids';
import { isTerminal } from './message-status';
import {
  copyEntryEvent,
  isCopyEntry,
  type ContentDoc,
  type CopyEntryEvent,
  type EventDoc,
  type MessageDoc,
  type SummaryDoc,
} from './message-records';
import type { MessageRecords } from './ports/messages';
import type { RetrySchedule } from './ports/schedules';

/**
 * How long a mail's outcome (and its content and summary) waits for the outcomes of the mails
 * delivered beside it before they are written together: a run's relays answer a few milliseconds
 * apart, and one write each cost FerretDB a transaction each.
 */
const OUTCOME_WRITE_LINGER_MS = 5;

export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
}

/** Exponential backoff with ±20 % jitter, so deferred mail does not come back in one wave. */
export const retryDelayMs = (policy: RetryPolicy, attempt: number): number =>
  Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);

/** What an engagement or feedback entry says besides its event. */
export interface EntryDetails {
  /** A click: the link followed. */
  url?: string;
  /** A bounce or complaint reported after sending: what the report said. */
  reason?: string;
  /** A report about one of the message's copies: which (see CopyEntryEvent). */
  copy?: { email: string; kind: CopyKind };
}

/** What is kept beside an attempt's outcome, once the outcome is stored. */
interface DeliveryCopies {
  /** The rendered email, when this attempt rendered one. */
  content?: ContentDoc;
  /** The message as read once its delivery ended, when this attempt ended it. */
  summary?: SummaryDoc;
}

/**
 * Appends to message timelines and emits each entry as a `message.<event>` on the bus. The
 * outcome of an attempt is stored the moment it is known, in group commits of outcomes alone
 * (small documents), which keeps the window between a relay's 250 and its record as short as one
 * insert: a process killed inside it has sent a mail it did not record, and the trigger's
 * redelivery sends it again. The rendered email and the summary are kept after it, in groups of
 * their own, whose large documents never hold an outcome back. An entry's event id is
 * `<messageId>:<sequence>`, so a re-emitted entry is recognisably the same.
 */

export class Timeline {
  /** Delivery events, each answered with whether it was stored already. */
  private readonly outcomes: GroupCommit<EventDoc, boolean>;
  /** The rendered emails and summaries of outcomes stored. */
  private readonly copies: GroupCommit<DeliveryCopies>;
  /** Engagement inserts, each answered with whether it was stored already. */
  private readonly engagements: GroupCommit<EventDoc, boolean>;
  /** One engagement of a message at a time here, so that two never take the same sequence number. */
  private readonly perMessage = new KeyedSerializer();

  constructor(
    private readonly store: MessageRecords,
    private readonly publisher: Publisher,
    private readonly retries: Pick<RetrySchedule, 'schedule'>,
    private readonly policy: RetryPolicy,
    /** Told of each delivery event the moment it is first stored (not of a replay): the read models and rollups. */
    private readonly onStored: (message: MessageDoc, event: EventDoc) => Promise<void> = () => Promise.resolve(),
    /** Told when rendered emails could not be kept: the outcomes are stored all the same. */
    private readonly onContentLost: (error: unknown, count: number) => void = () => undefined,
  ) {
    const appendNew = async (events: EventDoc[]): Promise<boolean[]> => {
      const existing = await store.appendNew(events);
      return events.map((e) => existing.has(e._id));
    };
    this.outcomes = new GroupCommit(appendNew, undefined, OUTCOME_WRITE_LINGER_MS);
    // The loss of a rendered email fails nothing (the message log shows no body). Summaries follow
    // their outcomes (a crash in between leaves a message read from its parts).
    this.copies = new GroupCommit<DeliveryCopies>(
      async (records) => {
        const contents = records.flatMap((r) => (r.content ? [r.content] : []));
        await Promise.all([
          store.keepContents(contents).catch((error: unknown) => this.onContentLost(error, contents.length)),
          store.keepSummaries(records.flatMap((r) => (r.summary ? [r.summary] : []))),
        ]);
      },
      undefined,
      OUTCOME_WRITE_LINGER_MS,
    );
    this.engagements = new GroupCommit(appendNew);
  }

  /** Stores what attempt number `attempt` came to, schedules the next one if it was deferred, and emits it. */
  async recordAttempt(message: MessageDoc, attempt: number, outcome: Outcome): Promise<EventDoc> {
    const exhausted = outcome.event === 'deferred' && attempt >= this.policy.maxAttempts;
    const event = exhausted ? 'failed' : outcome.event;
    const doc: EventDoc = {
      _id: deliveryEventId(message._id, attempt),
      messageId: message._id,
      projectId: message.projectId,
      event,
      sequence: attempt + 1,
      at: new Date(),
      attempt,
      ...(outcome.smtp ? { smtp: outcome.smtp } : {}),
      ...(exhausted ? { reason: `retries exhausted after ${attempt} attempts` } : outcome.reason ? { reason: outcome.reason } : {}),
      ...(outcome.subject ? { subject: outcome.subject } : {}),
      ...(outcome.language ? { language: outcome.language } : {}),
      ...(outcome.templateVersion !== undefined ? { templateVersion: outcome.templateVersion } : {}),
      ...(outcome.droppedCopies?.length ? { droppedCopies: outcome.droppedCopies } : {}),
      ...(outcome.deliveredCopies?.length ? { deliveredCopies: outcome.deliveredCopies } : {}),
    };
    if (event === 'deferred')
      await this.retries.schedule(message._id, attempt + 1, new Date(Date.now() + retryDelayMs(this.policy, attempt)));
    const content = outcome.content ? contentDoc(message._id, outcome.content) : undefined;
    // The first attempt's outcome is the whole timeline after `queued`; a later one follows the attempts before it.
    const summary = isTerminal(event)
      ? summaryOf(message, attempt === 1 ? [doc] : [...(await this.store.timeline(message._id)), doc])
      : undefined;
    const existed = await this.outcomes.add(doc);
    if (content || summary) await this.copies.add({ ...(content ? { content } : {}), ...(summary ? { summary } : {}) });
    if (!existed) await this.onStored(message, doc);
    await this.emit(message, attempt === 1 ? [queuedEntry(message), doc] : [doc]);
    return doc;
  }

  /**
   * Adds an engagement or feedback event after the message's last entry: the first open, the
   * first click of each link, the unsubscribe, a bounce or complaint reported after sending. Later
   * ones (a replayed link, an image proxy fetching again, a second report) are only counted on
   * that entry, so a timeline stays as short as the email's distinct links. True when the entry is
   * new (it was emitted).
   */
  recordEngagement(message: MessageDoc, event: TimelineEventName, at: Date, details: Omit<EntryDetails, 'copy'> = {}): Promise<boolean> {
    return this.perMessage.run(message._id, () => this.addEngagement(message, event, at, details));
  }

  /**
   * Adds what a copy's mail system reported after sending: an entry in the message's numbering,
   * one per copy and kind (a repeat is counted on it), read back as the message's `copy_reports`.
   * It is not a timeline entry and emits nothing: the status, timeline and webhooks are the
   * recipient's. True when the entry is new.
   */
  recordCopyReport(
    message: MessageDoc,
    copy: { email: string; kind: CopyKind },
    event: CopyReportEvent,
    at: Date,
    reason?: string,
  ): Promise<boolean> {
    return this.perMessage.run(message._id, () =>
      this.addEngagement(message, copyEntryEvent(event), at, { copy, ...(reason !== undefined ? { reason } : {}) }),
    );
  }

  private async addEngagement(
    message: MessageDoc,
    event: TimelineEventName | CopyEntryEvent,
    at: Date,
    details: EntryDetails,
  ): Promise<boolean> {
    const key = entryKey(event, details);
    const timeline = await this.store.timeline(message._id);
    const same = timeline.find((e) => e.key === key);
    if (same) {
      await this.store.countAgain(same._id);
      await this.summarise(message);
      return false;
    }
    // Entries are claimed in order by unique insert; a number another instance took is read, and
    // counted instead when it is this very engagement (so each kind or link is one entry).
    for (let skipped = 0; ; skipped++) {
      const doc = nextEntry(message, timeline, event, at, details, skipped);
      if (!(await this.engagements.add(doc))) {
        await this.summarise(message);
        if (!isCopyEntry(doc)) await this.emit(message, [doc]);
        return true;
      }
      const taken = (await this.store.timeline(message._id)).find((e) => e._id === doc._id);
      if (taken?.key === key) {
        await this.store.countAgain(taken._id);
        await this.summarise(message);
        return false;
      }
    }
  }

  /**
   * `recordEngagement` for a run of distinct messages whose timelines the caller has just read
   * (or their delivery histories alone: the insert claims the entry after them): their new entries
   * inserted together, each summary written from its timeline. Per entry: true when it was added
   * (and emitted); false when the timeline has it already or another entry took its number, which
   * `recordEngagement` then sorts out.
   */
  async recordEngagements(entries: NewEntry[]): Promise<boolean[]> {
    const docs = entries.map(({ message, timeline, event, at, details }) =>
      timeline.some((e) => e.key === entryKey(event, details ?? {})) ? null : nextEntry(message, timeline, event, at, details),
    );
    const fresh = docs.filter((d): d is EventDoc => d !== null);
    const taken = await this.store.appendNew(fresh);
    const added = docs.map((d) => d !== null && !taken.has(d._id));
    await inParallel(
      entries.flatMap((entry, i) => (added[i] ? [{ ...entry, doc: docs[i]! }] : [])),
      async ({ message, timeline, doc }) => {
        await this.store.replaceSummary(summaryOf(message, [...timeline, doc]));
        await this.emit(message, [doc]);
      },
    );
    return added;
  }

  /** Writes the message's summary anew from its timeline as stored now. */
  private async summarise(message: MessageDoc): Promise<void> {
    await this.store.replaceSummary(summaryOf(message, await this.store.timeline(message._id)));
  }

  /** Announces a scheduled message (`message.scheduled`, its first entry) when it is accepted. */
  announceScheduled(message: MessageDoc): Promise<void> {
    return this.emit(message, [queuedEntry(message)]);
  }

  /**
   * Ends a scheduled message `canceled`: the entry takes the first attempt's place (its id and
   * sequence), so a message never has both. Stored once; a repeat re-emits it. `taken` when the
   * place holds another outcome (the message was sent).
   */
  async recordCanceled(message: MessageDoc, at = new Date()): Promise<'canceled' | 'taken'> {
    const doc: EventDoc = {
      _id: deliveryEventId(message._id, 1),
      messageId: message._id,
      projectId: message.projectId,
      event: 'canceled',
      sequence: 2,
      at,
    };
    const existed = await this.outcomes.add(doc);
    const stored = existed ? (await this.store.timeline(message._id)).find((e) => e._id === doc._id) : doc;
    if (!stored || stored.event !== 'canceled') return 'taken';
    await this.copies.add({ summary: summaryOf(message, [stored]) });
    if (!existed) await this.onStored(message, stored);
    await this.emit(message, [stored]);
    return 'canceled';
  }

  /** Emits a finished message's whole timeline again (its first emission may have been cut short). */
  republish(message: MessageDoc, timeline: EventDoc[]): Promise<void> {
    return this.emit(message, [queuedEntry(message), ...timeline]);
  }

  private async emit(message: MessageDoc, entries: EventDoc[]): Promise<void> {
    await Promise.all(
      entries.filter(isTimelineEntry).map((e) =>
        // Every message.* type carries the same MessageEvent.
        this.publisher.publish(Topics.EmailEvents, `message.${e.event}` as 'message.sent', message._id, toMessageEvent(message, e), {
          id: `${message._id}:${e.sequence}`,
        }),
      ),
    );
  }
}

/** An engagement to add to a message whose timeline the caller read. */
export interface NewEntry {
  message: MessageDoc;
  timeline: EventDoc[];
  event: TimelineEventName;
  at: Date;
  details?: EntryDetails;
}

/**
 * The entry an engagement takes after a timeline's last: the next engagement number and sequence,
 * or `skipped` further on when others took those.
 */
function nextEntry(
  message: MessageDoc,
  timeline: EventDoc[],
  event: TimelineEventName | CopyEntryEvent,
  at: Date,
  details: EntryDetails = {},
  skipped = 0,
): EventDoc {
  const { url, reason, copy } = details;
  let last = 1;
  let n = 1;
  for (const e of timeline) {
    if (e.sequence > last) last = e.sequence;
    if (e.key !== undefined) n++;
  }
  n += skipped;
  last += skipped;
  return {
    _id: engagementEventId(message._id, n),
    messageId: message._id,
    projectId: message.projectId,
    event,
    key: entryKey(event, details),
    sequence: last + 1,
    at,
    count: 1,
    ...(url ? { url } : {}),
    ...(reason ? { reason } : {}),
    ...(copy ? { copy } : {}),
  };
}

const shortHash = (value: string): string => createHash('sha256').update(value).digest('base64url').slice(0, 22);

/** What is counted once: an open, an unsubscribe, a click of one link, one kind of report about one copy. */
const entryKey = (event: TimelineEventName | CopyEntryEvent, { url, copy }: Pick<EntryDetails, 'url' | 'copy'>): string =>
  copy ? `${event}:${shortHash(copy.email)}` : engagementKey(event as TimelineEventName, url);

/** A timeline entry proper: not an entry about a copy (see CopyEntryEvent). */
const isTimelineEntry = (e: EventDoc): e is EventDoc & { event: TimelineEventName } => !isCopyEntry(e);

/** What is counted once: an open, an unsubscribe, a click of one link. */
export const engagementKey = (event: TimelineEventName, url?: string): string =>
  event === 'clicked' ? `clicked:${shortHash(url ?? '')}` : event;

const toMessageEvent = (message: MessageDoc, e: EventDoc & { event: TimelineEventName }): MessageEvent => ({
  messageId: message._id,
  projectId: message.projectId,
  emailKey: message.emailKey ?? null,
  email: message.email,
  userId: message.userId,
  event: e.event,
  sequence: e.sequence,
  at: e.at.toISOString(),
  ...(e.smtp ? { smtp: e.smtp } : {}),
  ...(e.reason ? { reason: e.reason } : {}),
  ...(e.url ? { url: e.url } : {}),
  ...(message.tags ? { tags: message.tags } : {}),
  ...(message.metadata ? { metadata: message.metadata } : {}),
  ...(e.attempt ? { attempt: e.attempt } : {}),
  ...(e.language ? { language: e.language } : {}),
  ...(message.sendAt ? { sendAt: message.sendAt.toISOString() } : {}),
  ...(message.test ? { test: true as const } : {}),
});
