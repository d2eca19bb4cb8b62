import type { KeyHeaders } from './headers';

/** A message as the sink keeps it. */
export interface StoredMessage {
  readonly id: string;
  /** The bytes received after DATA, exactly (dot-stuffing undone, nothing added). */
  readonly raw: Buffer;
  /** MAIL FROM; '' for the null sender. */
  readonly mailFrom: string;
  readonly rcptTo: readonly string[];
  /** Milliseconds since the epoch. */
  readonly receivedAt: number;
  readonly headers: KeyHeaders;
  read: boolean;
}

/** Whether a message is one a list asks for (a compiled search, say). */
export type MessageFilter = (message: StoredMessage) => boolean;

export interface MessagePage {
  messages: StoredMessage[];
  /** How many messages match, on every page. */
  matched: number;
  matchedUnread: number;
}

/** What the Mailpit views read of the kept messages: a page of them, newest first, and the counts. */
export interface Mailbox {
  readonly size: number;
  readonly unreadCount: number;
  /** One page of the messages that match, newest first, and how many match in all. */
  page(start: number, limit: number, matches?: MessageFilter): MessagePage;
}
