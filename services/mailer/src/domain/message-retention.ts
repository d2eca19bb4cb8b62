import { every, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import { attachmentListProject, isProjectList, isScheduledList, personListsOf } from './message-lists';
import type { MessageDoc } from './message-records';
import type { MessageAttachments, MessageListing, MessageRecords } from './ports/messages';
import type { ScheduleDecision, WaitingSends } from './ports/schedules';

export interface RetentionDeps {
  store: MessageRecords;
  lists: MessageListing;
  attachments: Pick<MessageAttachments, 'deleteSets'>;
  schedule: Pick<WaitingSends, 'forget' | 'decisions'>;
  logger: Logger;
  /** Messages (and their timelines) older than this are deleted (MESSAGE_RETENTION_DAYS). */
  retentionDays: number;
  /** How often the purge runs. */
  intervalMs: number;
}

const DAY_MS = 86_400_000;

/**
 * Whether a message whose list entries have passed the cutoff is still kept: a scheduled one that
 * has not gone yet (no decision: neither sent nor cancelled, however late its worker is), or that
 * went after the cutoff (a scheduled message is as old as its send_at, not its acceptance). A
 * cancelled one, and every message sent at once, is as old as its acceptance. send_at may be 30
 * days ahead and MESSAGE_RETENTION_DAYS fewer: the acceptance alone would purge a message before
 * it is sent, or just after.
 */
export const outlivesCutoff = (message: Pick<MessageDoc, 'sendAt'>, decision: ScheduleDecision | undefined, cutoff: Date): boolean =>
  message.sendAt !== undefined && (decision === undefined || (decision === 'send' && message.sendAt >= cutoff));

/**
 * Keeps the message log to its retention window: every registered list is trimmed to the cutoff,
 * and the messages leaving their project's list (every message is in one) are deleted with their
 * timelines, chunk by chunk in point deletes, and their recipients' and users' lists (not
 * registered) trimmed to the cutoff too, and a scheduled message's decision (and any wait left)
 * with it. Attachments go through their own list (a set is listed before it is stored, so one
 * whose trigger never reached the bus goes too). A scheduled message that outlives the cutoff
 * (see outlivesCutoff) keeps its message, attachments and schedule, and is listed again at the
 * head of its project's list, its attachments' list and its `scheduled` list, at the purge's time,
 * so that retention comes back to it and the log still shows it (its recipient's, user's, email's
 * and tag's lists lose it at the cutoff, as they would without a schedule). A purge cut short (a
 * crash, a stop) resumes where it stopped; two instances purging at once only repeat deletes. A
 * kept message listed again twice (a crash before its old entry went, or two instances) is shown
 * once on a page of the log, which skips a repeat, and both entries are trimmed in their turn.
 */
export class MessageRetention {
  private loop: Repeating | undefined;

  constructor(private readonly deps: RetentionDeps) {}

  start(): void {
    this.loop = every(this.deps.intervalMs, () => this.purge(), {
      pace: 'rest-between-runs',
      // Not at start-up itself: a restart loop should not purge in a loop.
      firstRunAfterMs: Math.min(this.deps.intervalMs, 60_000),
      onError: (error) => this.deps.logger.warn('purging old messages failed', { error }),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }

  async purge(now = new Date()): Promise<{ lists: number; entries: number; messages: number; events: number; attachmentChunks: number }> {
    const { store, lists, attachments, schedule, retentionDays, logger } = this.deps;
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
    const deleted = { messages: 0, events: 0, attachmentChunks: 0 };
    /**
     * The messages of `ids` that outlive the cutoff, listed again in `list` before its entries go
     * (a crash in between lists them twice, never loses them); and the others, as stored. Point
     * reads: the messages, and the decisions of the scheduled ones.
     */
    const keepScheduled = async (list: string, ids: string[]): Promise<{ kept: Set<string>; leaving: MessageDoc[] }> => {
      const found = [...(await store.messagesById(ids)).values()];
      const scheduled = found.filter((m) => m.sendAt !== undefined);
      const decisions = scheduled.length > 0 ? await schedule.decisions(scheduled.map((m) => m._id)) : new Map<string, ScheduleDecision>();
      const kept = new Set(scheduled.filter((m) => outlivesCutoff(m, decisions.get(m._id), cutoff)).map((m) => m._id));
      if (kept.size > 0) await lists.listAgain(list, [...kept], now);
      return { kept, leaving: found.filter((m) => !kept.has(m._id)) };
    };
    const result = await lists.trimAll(cutoff, async (list, ids) => {
      const attachmentsOf = attachmentListProject(list);
      if (attachmentsOf !== undefined) {
        const { kept } = await keepScheduled(list, ids);
        deleted.attachmentChunks += await attachments.deleteSets(
          attachmentsOf,
          ids.filter((id) => !kept.has(id)),
        );
        return;
      }
      if (isScheduledList(list)) {
        await keepScheduled(list, ids);
        return;
      }
      if (!isProjectList(list)) return;
      const { kept, leaving } = await keepScheduled(list, ids);
      // With the ids of messages already gone (a purge resumed after a crash): their timelines may be left.
      const purged = ids.filter((id) => !kept.has(id));
      const people = new Set(leaving.flatMap(personListsOf));
      // Before the messages, whose send_at says which had a schedule: a purge resumed after a crash finds them again.
      await schedule.forget(leaving.filter((m) => m.sendAt).map((m) => m._id));
      const counts = await store.delete(purged);
      await lists.forget(purged);
      deleted.messages += counts.messages;
      deleted.events += counts.events;
      // After the messages: a crash in between leaves entries that point at nothing, which reads
      // skip, and which the trim after a later message of that person's removes.
      for (const person of people) await lists.trim(person, cutoff);
    });
    if (result.removed > 0) logger.info('purged old messages', { cutoff: cutoff.toISOString(), ...deleted, lists: result.lists });
    return { lists: result.lists, entries: result.removed, ...deleted };
  }
}
