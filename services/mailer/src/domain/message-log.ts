import type { Message, MessageContent, MessageStatus } from '@postbus/contracts';
import { messageView } from './message-view';
import { hasStatusList, listNames, listOwner } from './message-lists';
import type { MessageListing, MessageRecords } from './ports/messages';

export interface MessageQuery {
  projectId: string;
  /** Normalised already. */
  email?: string;
  userId?: string;
  emailKey?: string;
  tag?: string;
  status?: MessageStatus;
  /** Test messages only (see listOwner); real ones only otherwise. */
  test?: boolean;
  /** Accepted at or after. */
  from?: Date;
  /** Accepted at or before. */
  to?: Date;
  limit: number;
  /** Where the previous page ended: the list position its `next` named. */
  before?: number;
}

/**
 * Entries one page may look at beyond what it returns: with several filters, or a status that
 * many listed messages have left, a page can come back short with a cursor to read on.
 */
const SCAN_BUDGET = 200;
/**
 * The message log as clients read it: one message by id, and pages of a project's messages
 * newest first. Every read is a point read by `_id`: the entries of the list that serves the
 * filter (see MessageLists), then each message's summary, or for one still in delivery the message
 * and its timeline (probed ids).
 */
export class MessageLog {
  constructor(
    private readonly store: MessageRecords,
    private readonly lists: MessageListing,
  ) {}

  /**
   * One read for a message whose delivery is over (its summary); the message and its timeline's
   * probes otherwise, at once for one this process is delivering (no summary to look for first).
   */
  async message(projectId: string, id: string): Promise<Message | null> {
    if (!this.store.inDeliveryHere(id)) {
      const summary = await this.store.summary(projectId, id);
      if (summary) return summary;
    }
    const [message, timeline] = await Promise.all([this.store.message(projectId, id), this.store.timeline(id)]);
    return message ? messageView(message, timeline) : null;
  }

  /**
   * A message's rendered email: undefined for no such message in the project, `content: null`
   * for one that was never rendered (suppressed, or failed before rendering). Two point reads.
   */
  async content(projectId: string, id: string): Promise<{ content: MessageContent | null; test: boolean } | undefined> {
    const [message, doc] = await Promise.all([this.store.message(projectId, id), this.store.content(id)]);
    if (!message) return undefined;
    return {
      content: doc ? { subject: doc.subject, html: doc.html, text: doc.text, truncated: doc.truncated } : null,
      test: message.test === true,
    };
  }

  /** One page; `next`: the list position the next page reads before, null after the last. */
  async page(query: MessageQuery): Promise<{ data: Message[]; next: number | null }> {
    const { list, byTime } = this.listFor(query);
    let before = query.before;
    const data: Message[] = [];
    const seen = new Set<string>();
    let scanned = 0;
    // A first page's messages are read side by side with the list's head check, from the entries
    // this process appended (most pages are first pages of a list this mailer writes): one round
    // trip instead of two. A guess the check refutes only costs its reads.
    const early = new Map<string, Promise<Message | null>>();
    if (before === undefined && !query.to)
      for (const id of this.lists.newestKnown(list, query.limit)) {
        const view = this.message(query.projectId, id);
        view.catch(() => undefined); // awaited below when the page holds it; unused otherwise
        early.set(id, view);
      }
    for (;;) {
      const want = Math.min(query.limit - data.length, SCAN_BUDGET - scanned);
      const page = await this.lists.page(list, {
        limit: want,
        ...(before !== undefined ? { beforeSeq: before } : {}),
        ...(query.from ? { from: query.from } : {}),
        ...(query.to && byTime ? { to: query.to } : {}),
      });
      const views = await Promise.all(page.entries.map((e) => early.get(e.value) ?? this.message(query.projectId, e.value)));
      for (const [i, entry] of page.entries.entries()) {
        const view = views[i];
        scanned++;
        if (!view || seen.has(view.id) || !matches(view, query)) continue;
        seen.add(view.id);
        data.push(view);
        if (data.length === query.limit) {
          const last = i === page.entries.length - 1 && page.next === null;
          return { data, next: last ? null : entry.seq };
        }
      }
      if (page.next === null) return { data, next: null };
      before = page.next;
      if (scanned >= SCAN_BUDGET) return { data, next: before };
    }
  }

  /**
   * The smallest list that holds every message the query can match: the recipient's, the user's,
   * the transactional email's, the status's where it has one (what reached it: checked against the
   * current status on read), or the project's. `byTime`: the list is in acceptance order (a status list is in the
   * order messages reached it, at or after their acceptance: only `from` bounds it).
   */
  private listFor(query: MessageQuery): { list: string; byTime: boolean } {
    const projectId = listOwner(query.projectId, query.test);
    if (query.email !== undefined) return { list: listNames.recipient(projectId, query.email), byTime: true };
    if (query.userId !== undefined) return { list: listNames.user(projectId, query.userId), byTime: true };
    if (query.emailKey !== undefined) return { list: listNames.emailKey(projectId, query.emailKey), byTime: true };
    if (query.tag !== undefined) return { list: listNames.tag(projectId, query.tag), byTime: true };
    if (query.status !== undefined && hasStatusList(query.status))
      return { list: listNames.status(projectId, query.status), byTime: false };
    // Queued and sent (see hasStatusList): the newest of the project's list.
    return { list: listNames.project(projectId), byTime: true };
  }
}

/** Whether a message passes every filter of the query (the list chosen serves one of them). */
function matches(view: Message, query: MessageQuery): boolean {
  const created = Date.parse(view.created_at);
  return (
    (query.email === undefined || view.email === query.email) &&
    (query.userId === undefined || view.user_id === query.userId) &&
    (query.emailKey === undefined || view.email_key === query.emailKey) &&
    (query.tag === undefined || view.tags.includes(query.tag)) &&
    (query.status === undefined || view.status === query.status) &&
    view.test === (query.test === true) &&
    (query.to === undefined || created <= query.to.getTime() + CLOCK_SLACK_MS)
  );
}

/** created_at is the mailer's time, the lists' the gateway's acceptance: `to` allows for the gap. */
const CLOCK_SLACK_MS = 60_000;
