import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { MailerErasure } from '../src/domain/erasure-participant';
import { ErasuresDone } from '../src/model/erasure.repository';
import { AttachmentStore } from '../src/model/attachment.repository';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import type { MessageDoc } from '../src/domain/message-records';
import { RetryQueue } from '../src/model/retry.repository';
import { ScheduleQueue } from '../src/model/schedule.repository';
import { ERASURE } from '../src/domain/suppression-reasons';
import { Suppressions } from '../src/model/suppression.repository';
import { acceptedMessage } from './accepted-message';

/** The mailer's erasure against the real MongoDB-wire server: what goes, what stays, and that a repeat finds nothing. */
describe('erasing a person from the mailer', () => {
  let db: Connection;
  let store: MessageStore;
  let lists: MessageLists;
  let suppressions: Suppressions;
  let retries: RetryQueue;
  let erasure: MailerErasure;
  const projectId = 'p-erasure';

  const message = (id: string, email: string, userId: string | null, project = projectId): MessageDoc =>
    acceptedMessage({ id, projectId: project, email, userId });
  const event = (messageId: string, sequence: number) => ({
    _id: `${messageId}:${sequence + 1}`, // the outcome of attempt `sequence`
    messageId,
    projectId,
    event: 'deferred' as const,
    sequence: sequence + 1,
    at: new Date(),
  });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    lists = new MessageLists(db);
    suppressions = new Suppressions(db, (email) => `hash of ${email}`);
    retries = new RetryQueue(db);
    const done = new ErasuresDone(db);
    const schedule = new ScheduleQueue(db);
    await Promise.all([store.init(), lists.init(), suppressions.init(), retries.init(), done.init(), schedule.init()]);
    erasure = new MailerErasure({ store, lists, suppressions, retries, schedule, done, attachments: new AttachmentStore(db) });
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('suppresses during the window, then deletes messages, timelines, retries and suppressions', async () => {
    const ada = message('msg_ada1', 'ada@example.org', null);
    const adaByUid = message('msg_ada2', 'ada.old@example.org', 'u-1');
    const other = message('msg_bob', 'bob@example.org', 'u-2');
    const elsewhere = message('msg_ada3', 'ada@example.org', 'u-1', 'p-other');
    await store.insertNew([ada, adaByUid, other, elsewhere]);
    await Promise.all([ada, adaByUid, other, elsewhere].map((m) => lists.accepted(m, 'new')));
    await store.append([event(ada._id, 1), event(ada._id, 2), event(adaByUid._id, 1), event(other._id, 1)]);
    await retries.schedule(adaByUid._id, 2, new Date(Date.now() + 60_000));
    await suppressions.unsubscribed(projectId, 'ada@example.org', new Date());
    await suppressions.unsubscribed(projectId, 'ada.old@example.org', new Date());

    const scheduled = {
      erasureId: 'era_int1',
      projectId,
      id: null,
      email: 'ada@example.org',
      userId: 'u-1',
      requestedAt: new Date().toISOString(),
      eraseAt: new Date().toISOString(),
      before: new Date(Date.now() + 60_000).toISOString(),
    };
    await erasure.suppress(scheduled);
    await erasure.suppress(scheduled); // a replay adds nothing
    expect(await suppressions.reasons([ada, adaByUid, other, { projectId, email: 'new@example.org', userId: 'u-1' }, elsewhere])).toEqual([
      ERASURE,
      ERASURE,
      undefined,
      ERASURE,
      undefined,
    ]);

    expect(await erasure.erase(scheduled)).toEqual({ messages: 2, events: 3, attachmentChunks: 0, suppressions: 4 });
    expect([...(await store.messagesById([ada._id, adaByUid._id, other._id, elsewhere._id])).keys()].sort()).toEqual([
      elsewhere._id,
      other._id,
    ]);
    expect((await store.timelines([ada._id, other._id])).get(ada._id)).toEqual([]);
    expect(await retries.pending(adaByUid._id)).toBe(false);
    expect(await suppressions.reasons([ada, adaByUid])).toEqual([undefined, undefined]);

    // The command comes again until every service confirms: nothing is left to count.
    expect(await erasure.erase(scheduled)).toEqual({ messages: 0, events: 0, attachmentChunks: 0, suppressions: 0 });
    // A schedule that lags behind its erasure leaves no suppression.
    await erasure.suppress(scheduled);
    expect(await suppressions.reasons([ada, adaByUid])).toEqual([undefined, undefined]);
  });
});
