import type { Connection } from 'mongoose';
import type { MessageStatus } from '@postbus/contracts';
import { GroupCommit, SequenceLists, type ListAppend, type ListPage, type PageOptions } from '@postbus/db';
import { hasStatusList, isPersonList, listNames, listOwner, personListsOf } from '../domain/message-lists';
import type { MessageDoc } from '../domain/message-records';
import type { MessageListing } from '../domain/ports/messages';

// Kept for src/seed-data.ts, which imports it from here.
export { listNames } from '../domain/message-lists';

/** The `SequenceLists` mark of an `appendOnce` key (see libs/db sequence-lists.ts): deleted with the message. */
const onceMarkId = (key: string): string => `~once~${key}`;
const acceptedKey = (messageId: string): string => `accepted:${messageId}`;

/**
 * The message log's read models: message ids in the order they were accepted, per project, per
 * recipient, per user id, per transactional email and per status reached. Each entry is a
 * document read by `_id` alone (see SequenceLists), so a page costs point reads at any size, on
 * FerretDB and on MongoDB (whose `_id` index serves them; no other index is needed).
 */
export class MessageLists implements MessageListing {
  readonly lists: SequenceLists;

  constructor(connection: Connection) {
    // A person's list is not registered (a second document for each new recipient and user):
    // retention trims it when it deletes that person's messages.
    this.lists = new SequenceLists(connection, 'message_lists', { registry: (list) => !isPersonList(list) });
  }

  init(): Promise<void> {
    return this.lists.init();
  }

  /**
   * Adds an accepted message to its lists, once: `maybe-seen` for a redelivered trigger (whose
   * first delivery may or may not have got this far). Grouped with concurrent callers.
   */
  readonly accepted = (message: MessageDoc, known: 'new' | 'maybe-seen'): Promise<void> => this.acceptGroups.add({ message, known });

  private readonly acceptGroups = new GroupCommit<{ message: MessageDoc; known: 'new' | 'maybe-seen' }>(async (items) => {
    await this.lists.appendOnce(items.map(({ message, known }) => ({ key: acceptedKey(message._id), items: entriesOf(message), known })));
  });

  /** Adds a message to its project's list of messages that reached `status`, if it has one (called once per message and status). */
  readonly reached = (message: MessageDoc, status: MessageStatus, at: Date): Promise<void> =>
    hasStatusList(status)
      ? this.statusGroups.add({ list: listNames.status(listOwner(message.projectId, message.test), status), at, value: message._id })
      : Promise.resolve();

  private readonly statusGroups = new GroupCommit<ListAppend>(async (items) => {
    await this.lists.append(items);
  });

  /**
   * Lists a message whose attachments are about to be stored (retention deletes them through this
   * list). Concurrent sends share one insert: appended one by one, they would all claim the
   * list's same next number and retry against each other.
   */
  readonly attachmentsStored = (projectId: string, messageId: string, at: Date): Promise<void> =>
    this.attachmentGroups.add({ list: listNames.attachments(projectId), at, value: messageId });

  private readonly attachmentGroups = new GroupCommit<ListAppend>(async (items) => {
    await this.lists.append(items);
  });

  page(list: string, options: PageOptions): Promise<ListPage> {
    return this.lists.page(list, options);
  }

  /** The newest entries of a list held in memory: a first page's likely ids, before `page` confirms them. */
  newestKnown(list: string, limit: number): string[] {
    return this.lists.newestKnown(list, limit).map((e) => e.value);
  }

  /**
   * Trims one list to `cutoff` (all of it without one), in resumable chunks; `onChunk` gets the
   * message ids removed from it, chunk by chunk, before their entries go.
   */
  trim(list: string, cutoff: Date | undefined, onChunk?: (messageIds: string[]) => Promise<void>): Promise<number> {
    return this.lists.trim(list, cutoff, onChunk);
  }

  /** Retention over every list: `onChunk` gets the message ids removed from each list, chunk by chunk. */
  trimAll(cutoff: Date, onChunk: (list: string, messageIds: string[]) => Promise<void>): Promise<{ lists: number; removed: number }> {
    return this.lists.trimAll(cutoff, onChunk);
  }

  /**
   * Lists messages again at the head of a list that retention is trimming them from, at `at`: the
   * scheduled messages it keeps past the cutoff (see MessageRetention), which it must find again.
   */
  async listAgain(list: string, messageIds: string[], at: Date): Promise<void> {
    await this.lists.append(messageIds.map((value) => ({ list, at, value })));
  }

  /** Drops what remembers that messages were added (their messages are gone). */
  forget(messageIds: string[]): Promise<void> {
    return this.lists.deleteIds(messageIds.map((id) => onceMarkId(acceptedKey(id))));
  }
}

/** The entries of an accepted message: one in each list it belongs to, at its acceptance time. */
function entriesOf(message: MessageDoc): ListAppend[] {
  const { _id: value, acceptedAt: at } = message;
  const projectId = listOwner(message.projectId, message.test);
  return [
    { list: listNames.project(projectId), at, value },
    ...personListsOf(message).map((list) => ({ list, at, value })),
    ...(message.emailKey !== undefined ? [{ list: listNames.emailKey(projectId, message.emailKey), at, value }] : []),
    ...(message.tags ?? []).map((tag) => ({ list: listNames.tag(projectId, tag), at, value })),
  ];
}
