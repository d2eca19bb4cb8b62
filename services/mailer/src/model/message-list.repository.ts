import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { MessageStatus } from '@postbus/contracts';
import { GroupCommit, SequenceLists, type ListAppend, type ListPage, type PageOptions } from '@postbus/db';
import type { MessageDoc } from './message.repository';

/**
 * A hash of an identifier for a list's name: list names are part of every entry's `_id`, which
 * must hold no personal data (an address, a client's user id).
 */
const hashed = (projectId: string, kind: string, value: string): string =>
  createHash('sha256').update(`${projectId}\n${kind}\n${value}`).digest('base64url').slice(0, 22);

/** The names of the lists a message is in (each a `SequenceLists` list, newest read first). */
export const listNames = {
  project: (projectId: string): string => `p:${projectId}`,
  recipient: (projectId: string, email: string): string => `p:${projectId}:r:${hashed(projectId, 'email', email)}`,
  user: (projectId: string, userId: string): string => `p:${projectId}:u:${hashed(projectId, 'user', userId)}`,
  emailKey: (projectId: string, emailKey: string): string => `p:${projectId}:k:${hashed(projectId, 'key', emailKey)}`,
  status: (projectId: string, status: MessageStatus): string => `p:${projectId}:s:${status}`,
};

/**
 * Whether messages that reached a status are listed under it. Not where nearly every message
 * goes: `queued` (every message starts there) and `sent` (nearly every one ends there, and stays
 * while opened and clicked); those are read from the project's list, checking each message's
 * status, which saves a document on every message.
 */
export const hasStatusList = (status: MessageStatus): boolean => status !== 'queued' && status !== 'sent';

/** True for a project's list of all its messages (the one retention deletes messages by). */
export const isProjectList = (list: string): boolean => /^p:[^:]+$/.test(list);

/** True for a recipient's or a user's list: one per person, trimmed through the messages retention deletes. */
const isPersonList = (list: string): boolean => /^p:[^:]+:[ru]:/.test(list);

/** The recipient's and the user's lists a message is in. */
export const personListsOf = (message: Pick<MessageDoc, 'projectId' | 'email' | 'userId'>): string[] => [
  listNames.recipient(message.projectId, message.email),
  ...(message.userId !== null ? [listNames.user(message.projectId, message.userId)] : []),
];

/** The `SequenceLists` mark of an `appendOnce` key (see libs/db sequence-lists.ts): deleted with the message. */
const onceMarkId = (key: string): string => `~once~${key}`;
const acceptedKey = (messageId: string): string => `accepted:${messageId}`;

/**
 * The message log's read models: message ids in the order they were accepted, per project, per
 * recipient, per user id, per transactional email and per status reached. Each entry is a
 * document read by `_id` alone (see SequenceLists), so a page costs point reads at any size, on
 * FerretDB and on MongoDB (whose `_id` index serves them; no other index is needed).
 */
export class MessageLists {
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
      ? this.statusGroups.add({ list: listNames.status(message.projectId, status), at, value: message._id })
      : Promise.resolve();

  private readonly statusGroups = new GroupCommit<ListAppend>(async (items) => {
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

  /** Drops what remembers that messages were added (their messages are gone). */
  forget(messageIds: string[]): Promise<void> {
    return this.lists.deleteIds(messageIds.map((id) => onceMarkId(acceptedKey(id))));
  }
}

/** The entries of an accepted message: one in each list it belongs to, at its acceptance time. */
function entriesOf(message: MessageDoc): ListAppend[] {
  const { projectId, _id: value, acceptedAt: at } = message;
  return [
    { list: listNames.project(projectId), at, value },
    ...personListsOf(message).map((list) => ({ list, at, value })),
    { list: listNames.emailKey(projectId, message.emailKey), at, value },
  ];
}
