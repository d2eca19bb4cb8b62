import { createHash } from 'node:crypto';
import type { MessageStatus } from '@postbus/contracts';
import type { MessageDoc } from './message-records';

/**
 * A hash of an identifier for a list's name: list names are part of every entry's `_id`, which
 * must hold no personal data (an address, a client's user id).
 */
const hashed = (projectId: string, kind: string, value: string): string =>
  createHash('sha256').update(`${projectId}\n${kind}\n${value}`).digest('base64url').slice(0, 22);

/**
 * Whose lists a message is in: its project's, or for a test message its project's test log, a
 * separate set of lists, so that the message log never reads past test messages (nor a test key's
 * read past real ones). `~` is in no project id, and the test log's project list still counts as a
 * project list (retention deletes test messages as it does the others).
 */
export const listOwner = (projectId: string, test: boolean | undefined): string => (test ? `${projectId}~test` : projectId);

/**
 * The names of the lists a message is in (each a `SequenceLists` list, newest read first), by
 * their owner's id (see listOwner): the project's, or its test log's.
 */
export const listNames = {
  project: (projectId: string): string => `p:${projectId}`,
  recipient: (projectId: string, email: string): string => `p:${projectId}:r:${hashed(projectId, 'email', email)}`,
  user: (projectId: string, userId: string): string => `p:${projectId}:u:${hashed(projectId, 'user', userId)}`,
  /** The messages an address was copied on (cc or bcc): what an erasure of that address redacts it in. */
  copy: (projectId: string, email: string): string => `p:${projectId}:c:${hashed(projectId, 'copy', email)}`,
  emailKey: (projectId: string, emailKey: string): string => `p:${projectId}:k:${hashed(projectId, 'key', emailKey)}`,
  status: (projectId: string, status: MessageStatus): string => `p:${projectId}:s:${status}`,
  tag: (projectId: string, tag: string): string => `p:${projectId}:t:${hashed(projectId, 'tag', tag)}`,
  /** The messages whose attachments were stored, listed before the bytes are written: retention deletes sets through it. */
  attachments: (projectId: string): string => `p:${projectId}:a`,
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

/** True for a project's list of the messages that reached `scheduled` (every scheduled send, as it was accepted). */
export const isScheduledList = (list: string): boolean => /^p:[^:]+:s:scheduled$/.test(list);

/** The project whose list of messages with stored attachments this is; undefined for another list. */
export const attachmentListProject = (list: string): string | undefined => /^p:([^:]+):a$/.exec(list)?.[1];

/** True for a recipient's, a user's or a copied address's list: one per person, trimmed through the messages retention deletes. */
export const isPersonList = (list: string): boolean => /^p:[^:]+:[ruc]:/.test(list);

/** The recipient's and the user's lists a message is in, and those of the addresses it was copied to. */
export const personListsOf = (message: Pick<MessageDoc, 'projectId' | 'email' | 'userId' | 'test' | 'to' | 'cc' | 'bcc'>): string[] => {
  const owner = listOwner(message.projectId, message.test);
  return [
    listNames.recipient(owner, message.email),
    ...(message.userId !== null ? [listNames.user(owner, message.userId)] : []),
    ...[...(message.to ?? []), ...(message.cc ?? []), ...(message.bcc ?? [])].map((email) => listNames.copy(owner, email)),
  ];
};
