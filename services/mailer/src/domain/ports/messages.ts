import type { Message, MessageStatus } from '@postbus/contracts';
import type { ListPage, PageOptions } from '@postbus/db';
import type { ContentDoc, EventDoc, MessageDoc, SummaryDoc } from '../message-records';

/**
 * The stored messages: each message as accepted, its timeline, its rendered email and, once its
 * delivery is over, its summary (model/message.repository.ts). Every read and delete is by `_id`.
 */
export interface MessageRecords {
  /** Inserts one message; true when it existed already (a redelivered trigger). */
  insertOne(doc: MessageDoc): Promise<boolean>;
  /** A message of the project; null when it is not one (or is gone). */
  message(projectId: string, id: string): Promise<MessageDoc | null>;
  /** The messages found among `ids`, by id. */
  messagesById(ids: string[]): Promise<Map<string, MessageDoc>>;
  /** A message's timeline after `queued`, in sequence order. */
  timeline(id: string): Promise<EventDoc[]>;
  timelines(ids: string[]): Promise<Map<string, EventDoc[]>>;
  /** The messages' timelines without their engagement entries: one entry per attempt. */
  deliveryHistories(ids: string[]): Promise<Map<string, EventDoc[]>>;
  /** Appends timeline entries; returns the ids that were stored already. */
  appendNew(events: EventDoc[]): Promise<Set<string>>;
  /** Counts one more occurrence of an engagement entry. */
  countAgain(eventId: string): Promise<void>;
  /** Writes timeline entries anew (an erasure redacting a copy's address). */
  rewriteEvents(events: EventDoc[]): Promise<void>;
  /** Writes messages anew (an erasure redacting a copy's address, a scheduled message moved to another time). */
  rewriteMessages(docs: MessageDoc[]): Promise<void>;
  /** Keeps rendered emails; one kept already is left as it is. */
  keepContents(contents: ContentDoc[]): Promise<void>;
  /** A message's rendered email; null when it was never rendered (or is gone). */
  content(messageId: string): Promise<ContentDoc | null>;
  /** Keeps the summaries of messages whose delivery ended; one kept already is left as it is. */
  keepSummaries(summaries: SummaryDoc[]): Promise<void>;
  /** Writes a message's summary anew (an engagement changed it). */
  replaceSummary(summary: SummaryDoc): Promise<void>;
  /** A message's summary in the project; null while its delivery is under way (or it is gone). */
  summary(projectId: string, id: string): Promise<Message | null>;
  hasSummary(id: string): Promise<boolean>;
  /** Whether this process stored the message and has not summarized it: its delivery is most likely under way. */
  inDeliveryHere(id: string): boolean;
  /** Deletes messages with everything stored about them; counts what went. */
  delete(ids: string[]): Promise<{ messages: number; events: number }>;
}

/**
 * The message log's lists of message ids, newest first (see domain/message-lists.ts for which
 * lists a message is in): model/message-list.repository.ts.
 */
export interface MessageListing {
  /** Adds an accepted message to its lists, once: `maybe-seen` for a redelivered trigger. */
  accepted(message: MessageDoc, known: 'new' | 'maybe-seen'): Promise<void>;
  /** Adds a message to its project's list of messages that reached `status`, if it has one. */
  reached(message: MessageDoc, status: MessageStatus, at: Date): Promise<void>;
  page(list: string, options: PageOptions): Promise<ListPage>;
  /** The newest entries of a list held in memory: a first page's likely ids. */
  newestKnown(list: string, limit: number): string[];
  /** Trims one list to `cutoff` (all of it without one); `onChunk` gets the message ids removed, before their entries go. */
  trim(list: string, cutoff: Date | undefined, onChunk?: (messageIds: string[]) => Promise<void>): Promise<number>;
  /** Retention over every list: `onChunk` gets the message ids removed from each list. */
  trimAll(cutoff: Date, onChunk: (list: string, messageIds: string[]) => Promise<void>): Promise<{ lists: number; removed: number }>;
  /** Lists messages again at the head of a list retention is trimming them from. */
  listAgain(list: string, messageIds: string[], at: Date): Promise<void>;
  /** Drops what remembers that messages were added (their messages are gone). */
  forget(messageIds: string[]): Promise<void>;
}

/** Counts messages by the status they reached, per project and day (model/rollup.repository.ts). */
export interface StatusCounter {
  count(projectId: string, status: MessageStatus, at: Date): void;
}

/** The content of messages' attachments (model/attachment.repository.ts). */
export interface MessageAttachments {
  /** One attachment's bytes, or null when it is not (all) stored. */
  read(messageId: string, position: number, size: number): Promise<Buffer | null>;
  /** Deletes the attachments of a project's messages; returns how many chunks went. */
  deleteSets(projectId: string, messageIds: string[]): Promise<number>;
}
