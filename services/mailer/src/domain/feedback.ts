import type { FeedbackBounceEvent, FeedbackComplaintEvent, FeedbackUnsubscribeEvent } from '@postbus/contracts';
import type { MessageLists } from '../model/message-list.repository';
import { statusOf, type MessageDoc, type MessageStore } from '../model/message.repository';
import type { StatusRollups } from '../model/rollup.repository';
import type { Suppressions } from '../model/suppression.repository';
import type { Engagements } from './engagements';
import type { SuppressionList } from './suppression-list';
import type { Timeline } from './timeline';

export interface FeedbackDeps {
  store: MessageStore;
  timeline: Timeline;
  suppressions: Suppressions;
  suppressionList: SuppressionList;
  engagements: Engagements;
  lists: MessageLists;
  rollups: StatusRollups;
  /** Soft-bounced messages to one address after which it is suppressed (soft_bounce_limit). */
  softBounceLimit: number;
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
 * What came back about a sent message, read by the inbound MX (which verified the return-path
 * token naming it): a hard bounce turns the message `bounced` and suppresses the address for every
 * email of the project; a soft bounce is put on the timeline and counted, and the address is
 * suppressed once SOFT_BOUNCE_LIMIT of its messages soft-bounced; a complaint is put on the
 * timeline and suppresses the address; a mail to the List-Unsubscribe address unsubscribes the
 * recipient as the one-click link does. Each is idempotent: a redelivered report adds nothing.
 */
export class Feedback {
  constructor(private readonly deps: FeedbackDeps) {}

  async bounce(report: FeedbackBounceEvent): Promise<void> {
    const message = await this.message(report.messageId);
    if (!message) return; // erased, or past retention
    const { timeline, suppressions, suppressionList, lists, rollups, softBounceLimit } = this.deps;
    const at = new Date(report.at);
    const reason = bounceReason(report);
    if (report.class === 'hard') {
      // Suppressed before the message shows bounced: a client that sees it bounced and sends again is suppressed.
      await suppressionList.block(message.projectId, message.email, 'hard_bounce', at, message._id);
      // Refused by the relay already (a 5xx), the message is bounced: the report adds nothing to it.
      const bouncedAlready = statusOf(await this.deps.store.timeline(message._id)) === 'bounced';
      if (!bouncedAlready && (await timeline.recordEngagement(message, 'bounced', at, { reason }))) {
        rollups.count(message.projectId, 'bounced', at);
        await lists.reached(message, 'bounced', at);
      }
      return;
    }
    // A message counts once, however many delay notices its MTA sends.
    if (!(await timeline.recordEngagement(message, 'soft_bounced', at, { reason }))) return;
    const count = await suppressions.countSoftBounce(message.projectId, message.email, at);
    if (count >= softBounceLimit) await suppressionList.block(message.projectId, message.email, 'soft_bounce_limit', at, message._id);
  }

  async complaint(report: FeedbackComplaintEvent): Promise<void> {
    const message = await this.message(report.messageId);
    if (!message) return;
    const at = new Date(report.at);
    const reason = `${report.feedbackType} report${report.userAgent ? ` from ${report.userAgent}` : ''}`;
    // Suppressed before the timeline shows it, as a hard bounce is.
    await this.deps.suppressionList.block(message.projectId, message.email, 'complaint', at, message._id);
    await this.deps.timeline.recordEngagement(message, 'complained', at, { reason });
  }

  /** `eventId`: the feedback event's id, from which the unsubscribe command's id is derived. */
  async unsubscribe(report: FeedbackUnsubscribeEvent, eventId: string): Promise<void> {
    const message = await this.message(report.messageId);
    if (!message) return;
    await this.deps.engagements.record(
      { messageId: message._id, projectId: message.projectId, at: report.at },
      'unsubscribed',
      eventId,
      'mailto unsubscribe',
    );
  }

  private async message(id: string): Promise<MessageDoc | undefined> {
    return (await this.deps.store.messagesById([id])).get(id);
  }
}
