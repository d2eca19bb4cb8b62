import type { CopyKind, FeedbackBounceEvent, FeedbackComplaintEvent, FeedbackUnsubscribeEvent } from '@postbus/contracts';
import { statusOf } from './message-status';
import { copyAt, type MessageDoc } from './message-records';
import type { MessageListing, MessageRecords, StatusCounter } from './ports/messages';
import type { SoftBounceCounts } from './ports/suppressions';
import type { Engagements } from './engagements';
import type { SendPathPriority } from '@postbus/bus';
import type { SuppressionList } from './suppression-list';
import type { Timeline } from './timeline';

export interface FeedbackDeps {
  store: MessageRecords;
  timeline: Timeline;
  suppressions: SoftBounceCounts;
  suppressionList: SuppressionList;
  engagements: Engagements;
  lists: MessageListing;
  rollups: StatusCounter;
  /** Soft-bounced messages to one address after which it is suppressed (soft_bounce_limit). */
  softBounceLimit: number;
  /** Reports wait for their turn while triggers are delivered. */
  sendPath: SendPathPriority;
}

/** What a bounce report says, in one line for the timeline: status, diagnostic code and reporting MTA. */
export const bounceReason = (b: FeedbackBounceEvent): string =>
  [
    `${b.class} bounce (${b.action}${b.status ? ` ${b.status}` : ''})`,
    b.diagnosticCode ? `: ${b.diagnosticCode}` : '',
    b.reportingMta ? `; reported by ${b.reportingMta}` : '',
  ]
    .join('')
    .slice(0, 1000);

/**
 * The cc or bcc copy a report is about, rather than the message's recipient: the copy whose own
 * return path it came to (`copy`), whatever address it names; `null` when that copy is gone (its
 * person erased), and nothing may come of the report. A report to the recipient's return path is
 * a copy's only when it names one (a message sent before each copy had its own mail); one naming
 * no address, or one that is neither (the address the mail was forwarded to), is the recipient's.
 */
export const copyReported = (
  message: MessageDoc,
  report: { recipient?: string; copy?: number },
): { email: string; kind: CopyKind } | null | undefined => {
  if (report.copy !== undefined) {
    const copy = copyAt(message, report.copy);
    return copy ? { email: copy.email, kind: copy.kind } : null;
  }
  const address = report.recipient;
  if (address === undefined || address === message.email) return undefined;
  if (message.to?.includes(address)) return { email: address, kind: 'to' };
  if (message.cc?.includes(address)) return { email: address, kind: 'cc' };
  return message.bcc?.includes(address) ? { email: address, kind: 'bcc' } : undefined;
};

/**
 * What came back about a sent message, read by the inbound MX (which verified the return-path
 * token naming it): a hard bounce turns the message `bounced` and suppresses the address for every
 * email of the project; a soft bounce is put on the timeline and counted, and the address is
 * suppressed once SOFT_BOUNCE_LIMIT of its messages soft-bounced; a complaint is put on the
 * timeline and suppresses the address; a mail to the List-Unsubscribe address unsubscribes the
 * recipient as the one-click link does. Each is idempotent: a redelivered report adds nothing.
 * A bounce or complaint of a cc or bcc address is that copy's alone, with the same effects on its
 * address (a hard bounce or a complaint suppresses it, a soft bounce counts toward its limit); it
 * is kept on the message as a copy report (`copy_reports`), and the message's status, timeline
 * and webhooks stay its recipient's. A test message reached no one: its reports are on its timeline,
 * and suppress no address and count toward no limit.
 */
export class Feedback {
  constructor(private readonly deps: FeedbackDeps) {}

  /** One report: the batch path, and what it leaves (a report again, a timeline changed meanwhile) step by step. */
  async bounce(report: FeedbackBounceEvent): Promise<void> {
    if ((await this.bounces([report])).length > 0) await this.bounceStepwise(report);
  }

  /**
   * A run of reports: their messages, suppressions and timelines read and written together, each
   * with the effects `bounceStepwise` has. Returns the positions it left to `bounce`: a second
   * report about a message or an address of the run, a message with an engagement entry (a
   * report again, an open before a delay notice), or one that got another entry in between.
   */
  async bounces(reports: FeedbackBounceEvent[]): Promise<number[]> {
    const { store, timeline, suppressions, suppressionList, lists, rollups, softBounceLimit, sendPath } = this.deps;
    await sendPath.admit(reports.length);
    const messages = await store.messagesById(reports.map((r) => r.messageId));
    const left: number[] = [];
    const seen = new Set<string>();
    const aboutCopies: Array<{ message: MessageDoc; copy: { email: string; kind: CopyKind }; report: FeedbackBounceEvent }> = [];
    const run = reports.flatMap((report, i) => {
      const message = messages.get(report.messageId);
      if (!message) return []; // erased, or past retention
      const copy = copyReported(message, report);
      if (copy === null) return [];
      if (copy !== undefined) {
        aboutCopies.push({ message, copy, report });
        return [];
      }
      const address = `${message.projectId}\n${message.email}`;
      if (seen.has(message._id) || seen.has(address)) {
        left.push(i);
        return [];
      }
      seen.add(message._id).add(address);
      return [{ i, report, message, hard: report.class === 'hard', at: new Date(report.at) }];
    });
    // Suppressed before the messages show bounced: a client that sees one bounced and sends again is suppressed.
    const hard = run.filter((r) => r.hard && !r.message.test);
    await suppressionList.block([
      ...hard.map(({ message, at }) => ({
        projectId: message.projectId,
        email: message.email,
        reason: 'hard_bounce' as const,
        at,
        messageId: message._id,
      })),
    ]);
    // Without engagement entries, which a reported message mostly lacks: the new entry's unique insert
    // finds out when it has one (it is then left to `bounce`), and a read is saved per report.
    const timelines = await store.deliveryHistories(run.map((r) => r.message._id));
    // Refused by the relay already (a 5xx), a message is bounced: the report adds nothing to it.
    const entries = run.filter((r) => !(r.hard && statusOf(timelines.get(r.message._id)!) === 'bounced'));
    const added = await timeline.recordEngagements(
      entries.map(({ message, report, hard: isHard, at }) => ({
        message,
        timeline: timelines.get(message._id)!,
        event: isHard ? 'bounced' : 'soft_bounced',
        at,
        details: { reason: bounceReason(report) },
      })),
    );
    const soft: typeof run = [];
    await Promise.all(
      entries.map(async (entry, k) => {
        if (!added[k]) left.push(entry.i);
        else if (!entry.hard) soft.push(entry);
        else {
          if (!entry.message.test) rollups.count(entry.message.projectId, 'bounced', entry.at);
          await lists.reached(entry.message, 'bounced', entry.at);
        }
      }),
    );
    // A message counts once, however many delay notices its MTA sends.
    const live = soft.filter((entry) => !entry.message.test);
    const counts = await Promise.all(live.map(({ message, at }) => suppressions.countSoftBounce(message.projectId, message.email, at)));
    await suppressionList.block(
      live
        .filter((_, k) => counts[k]! >= softBounceLimit)
        .map(({ message, at }) => ({
          projectId: message.projectId,
          email: message.email,
          reason: 'soft_bounce_limit',
          at,
          messageId: message._id,
        })),
    );
    // Few, and each a copy's own entry: one at a time per message (see Timeline.recordCopyReport).
    await Promise.all(aboutCopies.map(({ message, copy, report }) => this.copyBounce(message, copy, report)));
    return left.sort((a, b) => a - b);
  }

  /**
   * A copy's bounce, with the effects a recipient's has on its address: a hard bounce suppresses
   * it; a soft bounce counts once per message (its copy report is one per copy and kind) toward
   * the address's SOFT_BOUNCE_LIMIT, the same count a message to it as recipient adds to.
   */
  private async copyBounce(message: MessageDoc, copy: { email: string; kind: CopyKind }, report: FeedbackBounceEvent): Promise<void> {
    const { timeline, suppressions, suppressionList, softBounceLimit } = this.deps;
    const at = new Date(report.at);
    const reason = bounceReason(report);
    const blocked = { projectId: message.projectId, email: copy.email, at, messageId: message._id };
    if (report.class === 'hard') {
      // Suppressed before the message shows it, as a recipient's hard bounce is.
      if (!message.test) await suppressionList.block([{ ...blocked, reason: 'hard_bounce' }]);
      await timeline.recordCopyReport(message, copy, 'bounced', at, reason);
      return;
    }
    if (!(await timeline.recordCopyReport(message, copy, 'soft_bounced', at, reason)) || message.test) return;
    const count = await suppressions.countSoftBounce(message.projectId, copy.email, at);
    if (count >= softBounceLimit) await suppressionList.block([{ ...blocked, reason: 'soft_bounce_limit' }]);
  }

  /** One report, one step at a time: what the batch path leaves. */
  private async bounceStepwise(report: FeedbackBounceEvent): Promise<void> {
    const message = await this.message(report.messageId);
    if (!message) return; // erased, or past retention
    const { timeline, suppressions, suppressionList, lists, rollups, softBounceLimit } = this.deps;
    const copy = copyReported(message, report);
    if (copy === null) return;
    if (copy !== undefined) return this.copyBounce(message, copy, report);
    const at = new Date(report.at);
    const reason = bounceReason(report);
    const blocked = { projectId: message.projectId, email: message.email, at, messageId: message._id };
    if (report.class === 'hard') {
      if (!message.test) await suppressionList.block([{ ...blocked, reason: 'hard_bounce' }]);
      const bouncedAlready = statusOf(await this.deps.store.timeline(message._id)) === 'bounced';
      if (!bouncedAlready && (await timeline.recordEngagement(message, 'bounced', at, { reason }))) {
        if (!message.test) rollups.count(message.projectId, 'bounced', at);
        await lists.reached(message, 'bounced', at);
      }
      return;
    }
    if (!(await timeline.recordEngagement(message, 'soft_bounced', at, { reason })) || message.test) return;
    const count = await suppressions.countSoftBounce(message.projectId, message.email, at);
    if (count >= softBounceLimit) await suppressionList.block([{ ...blocked, reason: 'soft_bounce_limit' }]);
  }

  async complaint(report: FeedbackComplaintEvent): Promise<void> {
    const message = await this.message(report.messageId);
    if (!message) return;
    const at = new Date(report.at);
    const copy = copyReported(message, report);
    if (copy === null) return;
    const reason = `${report.feedbackType} report${report.userAgent ? ` from ${report.userAgent}` : ''}`;
    // A copy's complaint is its own: its address is suppressed, and the message's recipient is not.
    // A test message reached no one: nothing about it, or its copies, may refuse the client's real
    // mail (see delivery/simulated-relay.ts).
    if (copy !== undefined) {
      if (!message.test)
        await this.deps.suppressionList.block([
          { projectId: message.projectId, email: copy.email, reason: 'complaint', at, messageId: message._id },
        ]);
      await this.deps.timeline.recordCopyReport(message, copy, 'complained', at, reason);
      return;
    }
    // Suppressed before the timeline shows it, as a hard bounce is.
    if (!message.test)
      await this.deps.suppressionList.block([
        { projectId: message.projectId, email: message.email, reason: 'complaint', at, messageId: message._id },
      ]);
    await this.deps.timeline.recordEngagement(message, 'complained', at, { reason });
  }

  /** `eventId`: the feedback event's id, from which the unsubscribe command's id is derived. */
  async unsubscribe(report: FeedbackUnsubscribeEvent, eventId: string): Promise<void> {
    const message = await this.message(report.messageId);
    if (!message) return;
    await this.deps.engagements.record(
      { messageId: message._id, projectId: message.projectId, at: report.at, ...(report.copy !== undefined ? { copy: report.copy } : {}) },
      'unsubscribed',
      eventId,
      'mailto unsubscribe',
    );
  }

  private async message(id: string): Promise<MessageDoc | undefined> {
    return (await this.deps.store.messagesById([id])).get(id);
  }
}
