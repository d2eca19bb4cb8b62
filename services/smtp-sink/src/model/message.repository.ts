import { randomUUID } from 'node:crypto';
import { keyHeadersOf } from '../domain/headers';
import type { Mailbox, MessageFilter, MessagePage, StoredMessage } from '../domain/ports';

export interface IncomingMessage {
  raw: Buffer;
  mailFrom: string;
  rcptTo: string[];
}

// Dropped slots at the front are reclaimed in one copy once they are many, so dropping the oldest
// message stays O(1) on average (Array#shift would move the whole array at every message).
const COMPACT_AFTER = 1024;

/** Every message in memory, in arrival order, the oldest dropped beyond a limit. */
export class MessageStore implements Mailbox {
  // Slots before `head` are dropped messages, emptied so their bytes can be collected.
  private slots: Array<StoredMessage | undefined> = [];
  private head = 0;
  private readonly byId = new Map<string, StoredMessage>();
  private unread = 0;

  constructor(private readonly maxMessages: number) {}

  /** The receive path: the few key headers are read now, everything else when someone asks. */
  add({ raw, mailFrom, rcptTo }: IncomingMessage): StoredMessage {
    const message: StoredMessage = {
      id: randomUUID(),
      raw,
      mailFrom,
      rcptTo,
      receivedAt: Date.now(),
      headers: keyHeadersOf(raw),
      read: false,
    };
    this.slots.push(message);
    this.byId.set(message.id, message);
    this.unread++;
    while (this.byId.size > this.maxMessages) this.dropOldest();
    return message;
  }

  get size(): number {
    return this.byId.size;
  }

  get unreadCount(): number {
    return this.unread;
  }

  get(id: string): StoredMessage | undefined {
    return this.byId.get(id);
  }

  latest(): StoredMessage | undefined {
    return this.slots.length > this.head ? this.slots[this.slots.length - 1] : undefined;
  }

  markRead(message: StoredMessage): void {
    if (message.read || !this.byId.has(message.id)) return;
    message.read = true;
    this.unread--;
  }

  *newestFirst(): Generator<StoredMessage> {
    for (let i = this.slots.length - 1; i >= this.head; i--) yield this.slots[i]!;
  }

  page(start: number, limit: number, matches?: MessageFilter): MessagePage {
    if (!matches) {
      // No filter: the page is a slice from the newest end, no need to walk the mailbox.
      const end = Math.max(this.head, this.slots.length - start);
      const begin = Math.max(this.head, end - limit);
      const messages = this.slots.slice(begin, end).reverse() as StoredMessage[];
      return { messages, matched: this.size, matchedUnread: this.unread };
    }
    const messages: StoredMessage[] = [];
    let matched = 0;
    let matchedUnread = 0;
    for (const message of this.newestFirst()) {
      if (!matches(message)) continue;
      if (matched >= start && messages.length < limit) messages.push(message);
      matched++;
      if (!message.read) matchedUnread++;
    }
    return { messages, matched, matchedUnread };
  }

  /** Deletes the given messages (unknown ids are ignored) and answers how many went. */
  delete(ids: Iterable<string>): number {
    const doomed = new Set<string>();
    for (const id of ids) if (this.byId.has(id)) doomed.add(id);
    if (doomed.size === 0) return 0;
    for (const id of doomed) this.forget(this.byId.get(id)!);
    this.slots = this.slots.slice(this.head).filter((message) => message && !doomed.has(message.id));
    this.head = 0;
    return doomed.size;
  }

  clear(): void {
    this.slots = [];
    this.head = 0;
    this.byId.clear();
    this.unread = 0;
  }

  private dropOldest(): void {
    const oldest = this.slots[this.head];
    if (!oldest) return;
    this.forget(oldest);
    this.slots[this.head++] = undefined;
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.slots.length) {
      this.slots = this.slots.slice(this.head);
      this.head = 0;
    }
  }

  private forget(message: StoredMessage): void {
    this.byId.delete(message.id);
    if (!message.read) this.unread--;
  }
}
