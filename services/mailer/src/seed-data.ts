import { createHash, randomBytes } from 'node:crypto';
import type { ListAppend } from '@postbus/db';
import { summaryOf } from './domain/message-view';
import { listNames, type MessageLists } from './model/message-list.repository';
import {
  deliveryEventId,
  engagementEventId,
  type EventDoc,
  type MessageDoc,
  type MessageStore,
  type SummaryDoc,
} from './model/message.repository';
import type { StatusRollups } from './model/rollup.repository';
import { engagementKey } from './domain/timeline';

export interface SeedOptions {
  projectId: string;
  count: number;
  /** Distinct recipients (and user ids) the messages go to. */
  recipients: number;
  /** Messages are spread over the last `days` days (keep it inside the retention window). */
  days: number;
  /** One more person with `personCount` messages of their own (the bench erases them). */
  person?: { email: string; count: number; userId: string | null };
  /** Progress lines (stderr). */
  progress?: (line: string) => void;
  now?: Date;
}

export interface SeedResult {
  seeded: { messages: number; events: number; listEntries: number };
  ids: { projectId: string; messageId: string; email: string; userId: string; personEmail?: string; personMessageId?: string };
}

const CHUNK = 1_000;
const EMAIL_KEYS = ['welcome', 'receipt', 'reset-password'];
const SEED_LINK = 'https://shop.seed.example/offers';

/** A message id of the gateway's shape (`msg_` and 32 hex digits), new for each run. */
const messageIdOf = (run: string, n: number): string => `msg_${createHash('sha256').update(`${run}:${n}`).digest('hex').slice(0, 32)}`;

/**
 * Writes what the mailer's write paths write for `count` sent messages (each sent, opened and clicked): the
 * message, its delivery event and engagement entries, its summary, its list entries (`sent` has no status list:
 * see hasStatusList) and the rollups, in bulk inserts through the service's own classes. Messages are in acceptance
 * order, so the lists are too; each recipient's and user's list is appended in one go (a list's
 * head is probed once), the project's and the emails' in chunks.
 */
export async function seedMessages(
  { store, lists, rollups }: { store: MessageStore; lists: MessageLists; rollups: StatusRollups },
  options: SeedOptions,
): Promise<SeedResult> {
  const { projectId, count, recipients, days } = options;
  const progress = options.progress ?? (() => undefined);
  const now = (options.now ?? new Date()).getTime();
  const span = days * 86_400_000;
  const total = count + (options.person?.count ?? 0);
  // Every person's message n is at an evenly spaced time; the person's messages are spread among them.
  const personEvery = options.person ? Math.max(1, Math.floor(total / options.person.count)) : 0;
  let personLeft = options.person?.count ?? 0;
  const result: SeedResult = {
    seeded: { messages: 0, events: 0, listEntries: 0 },
    ids: { projectId, messageId: '', email: '', userId: '' },
  };
  const byPerson = new Map<string, ListAppend[]>();
  const run = randomBytes(8).toString('hex');

  for (let start = 0; start < total; start += CHUNK) {
    const messages: MessageDoc[] = [];
    const events: EventDoc[] = [];
    const summaries: SummaryDoc[] = [];
    const ordered: ListAppend[] = [];
    for (let n = start; n < Math.min(total, start + CHUNK); n++) {
      const acceptedAt = new Date(now - span + Math.floor((span * n) / total));
      const isPerson = options.person !== undefined && personLeft > 0 && (n % personEvery === 0 || total - n <= personLeft);
      if (isPerson) personLeft--;
      const r = n % recipients;
      const email = isPerson ? options.person!.email : `user${r}@seed.example`;
      const userId = isPerson ? options.person!.userId : `seed-user-${r}`;
      const emailKey = EMAIL_KEYS[n % EMAIL_KEYS.length]!;
      const message: MessageDoc = {
        _id: messageIdOf(run, n),
        projectId,
        emailId: `seed-email-${emailKey}`,
        emailKey,
        templateId: 'seed-template',
        templateVersion: 1,
        email,
        userId,
        user: { email, ...(userId !== null ? { user_id: userId } : {}), name: `Seed ${r}` },
        data: { n },
        acceptedAt,
        createdAt: acceptedAt,
      };
      messages.push(message);
      const sentAt = new Date(acceptedAt.getTime() + 1_000);
      events.push({
        _id: deliveryEventId(message._id, 1),
        messageId: message._id,
        projectId,
        event: 'sent',
        sequence: 2,
        at: sentAt,
        attempt: 1,
        smtp: { code: 250, response: '250 OK queued' },
        subject: `Hello Seed ${r}`,
      });
      // Opened and clicked, as the engagement path stores them: the issue's three events a message
      // (sent, opened, clicked; queued is the message itself).
      const openedAt = new Date(acceptedAt.getTime() + 60_000);
      const clickedAt = new Date(acceptedAt.getTime() + 90_000);
      events.push(
        {
          _id: engagementEventId(message._id, 1),
          messageId: message._id,
          projectId,
          event: 'opened',
          key: engagementKey('opened'),
          sequence: 3,
          at: openedAt,
          count: 1,
        },
        {
          _id: engagementEventId(message._id, 2),
          messageId: message._id,
          projectId,
          event: 'clicked',
          key: engagementKey('clicked', SEED_LINK),
          url: SEED_LINK,
          sequence: 4,
          at: clickedAt,
          count: 1,
        },
      );
      summaries.push(summaryOf(message, events.slice(-3)));
      ordered.push(
        { list: listNames.project(projectId), at: acceptedAt, value: message._id },
        { list: listNames.emailKey(projectId, emailKey), at: acceptedAt, value: message._id },
      );
      const own = [
        { list: listNames.recipient(projectId, email), at: acceptedAt, value: message._id },
        ...(userId !== null ? [{ list: listNames.user(projectId, userId), at: acceptedAt, value: message._id }] : []),
      ];
      for (const entry of own) byPerson.set(entry.list, [...(byPerson.get(entry.list) ?? []), entry]);
      rollups.count(projectId, 'queued', acceptedAt);
      rollups.count(projectId, 'sent', sentAt);
      if (isPerson) result.ids.personMessageId ??= message._id;
      else if (!result.ids.messageId) Object.assign(result.ids, { messageId: message._id, email, userId: userId ?? '' });
    }
    await store.insertNew(messages);
    await store.append(events);
    await store.keepSummaries(summaries);
    await lists.lists.append(ordered);
    result.seeded.messages += messages.length;
    result.seeded.events += events.length;
    result.seeded.listEntries += ordered.length;
    progress(`messages ${result.seeded.messages}/${total}`);
  }

  // Each recipient's and user's entries in one append per group of lists: a list's head is found once.
  const own = [...byPerson.values()];
  for (let start = 0; start < own.length; start += CHUNK / 4) {
    const entries = own.slice(start, start + CHUNK / 4).flat();
    for (let k = 0; k < entries.length; k += CHUNK * 5) await lists.lists.append(entries.slice(k, k + CHUNK * 5));
    result.seeded.listEntries += entries.length;
    progress(`recipient and user lists ${Math.min(own.length, start + CHUNK / 4)}/${own.length}`);
  }
  await rollups.flush();
  if (options.person) result.ids.personEmail = options.person.email;
  return result;
}
