import type { Publisher } from '@postbus/bus';
import { Topics, userOrderingKey, type TrackingEvent } from '@postbus/contracts';
import type { MessageRecords } from './ports/messages';
import type { SoftBounceCounts } from './ports/suppressions';
import { copyAt, type MessageDoc } from './message-records';
import type { SuppressionList } from './suppression-list';
import type { Timeline } from './timeline';

export interface EngagementDeps {
  store: MessageRecords;
  timeline: Timeline;
  suppressionList: SuppressionList;
  suppressions: SoftBounceCounts;
  publisher: Publisher;
}

/**
 * Opens, clicks and one-click unsubscribes join the message's timeline. An unsubscribe also
 * suppresses the address here at once and asks the users service (the owner of subscription
 * state) to unsubscribe the user. A message opened or clicked reached its recipient: the address's
 * soft bounces start counting again (SOFT_BOUNCE_LIMIT counts them in a row). A test message
 * reached no one: its unsubscribe is on its timeline, and suppresses no one.
 */
export class Engagements {
  constructor(private readonly deps: EngagementDeps) {}

  /**
   * `eventId`: the tracking event's id, from which the unsubscribe command's id is derived (a
   * replay publishes the same); `how`: the unsubscribe's reason as the user's profile shows it.
   */
  async record(
    data: TrackingEvent,
    event: 'opened' | 'clicked' | 'unsubscribed',
    eventId: string,
    how = 'one-click unsubscribe',
  ): Promise<void> {
    const { store, timeline, suppressionList, suppressions, publisher } = this.deps;
    const message = await store.message(data.projectId, data.messageId);
    if (!message) return; // a token of a message since erased, or of another installation
    const at = new Date(data.at);
    if (event === 'unsubscribed' && data.copy !== undefined) return this.copyUnsubscribed(message, data.copy, at, how);
    // A test message reached no one: its unsubscribe is on its timeline, and unsubscribes no one.
    if (event === 'unsubscribed' && !message.test) {
      await suppressionList.unsubscribed(message.projectId, message.email, at);
      await publisher.publish(
        Topics.UserCommands,
        'user.unsubscribe',
        userOrderingKey(message.projectId, { email: message.email }),
        { projectId: message.projectId, user: { email: message.email }, reason: how, acceptedAt: data.at },
        { id: `${eventId}:unsubscribe` },
      );
    }
    const first = await timeline.recordEngagement(message, event, at, data.url ? { url: data.url } : {});
    // Once per message and event: a later open of the same message proves nothing new.
    if (first && event !== 'unsubscribed' && !message.test) await suppressions.clearSoftBounces(message.projectId, message.email);
  }

  /**
   * An unsubscribe from a copy's own mail is that copy's: its address is suppressed (unsubscribed)
   * and the report kept as the copy's. A copy is no user of the project: no user is unsubscribed,
   * and the recipient stays subscribed.
   */
  private async copyUnsubscribed(message: MessageDoc, position: number, at: Date, how: string): Promise<void> {
    const copy = copyAt(message, position);
    if (!copy) return; // its person erased since
    if (!message.test) await this.deps.suppressionList.unsubscribed(message.projectId, copy.email, at);
    await this.deps.timeline.recordCopyReport(message, { email: copy.email, kind: copy.kind }, 'unsubscribed', at, how);
  }
}
