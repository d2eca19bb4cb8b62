import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { MailerErasure } from '../src/domain/erasure-participant';
import { ErasuresDone } from '../src/model/erasure.repository';
import { AttachmentStore } from '../src/model/attachment.repository';
import { MessageLists } from '../src/model/message-list.repository';
import { listNames } from '../src/domain/message-lists';
import { MessageStore } from '../src/model/message.repository';
import type { MessageDoc } from '../src/domain/message-records';
import { RetryQueue } from '../src/model/retry.repository';
import { ScheduleQueue } from '../src/model/schedule.repository';
import { ERASURE } from '../src/domain/suppression-reasons';
import { messageView, summaryOf } from '../src/domain/message-view';
import { ERASED_COPY_ADDRESS } from '@postbus/contracts';
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

    expect(await erasure.erase(scheduled)).toEqual({ messages: 2, events: 3, attachmentChunks: 0, copiesRedacted: 0, suppressions: 4 });
    expect([...(await store.messagesById([ada._id, adaByUid._id, other._id, elsewhere._id])).keys()].sort()).toEqual([
      elsewhere._id,
      other._id,
    ]);
    expect((await store.timelines([ada._id, other._id])).get(ada._id)).toEqual([]);
    expect(await retries.pending(adaByUid._id)).toBe(false);
    // Both suppressions are gone: a message accepted after the erasure ran reaches whoever has the
    // address or the user id now; one accepted before it (a trigger the mailer handles late) is the
    // erased person's, and is suppressed.
    const after = { acceptedAt: new Date(Date.parse(scheduled.before) + 1) };
    expect(await suppressions.reasons([ada, adaByUid, { ...ada, ...after }, { ...adaByUid, ...after }])).toEqual([
      ERASURE,
      ERASURE,
      undefined,
      undefined,
    ]);

    // The command comes again until every service confirms: nothing is left to count.
    expect(await erasure.erase(scheduled)).toEqual({ messages: 0, events: 0, attachmentChunks: 0, copiesRedacted: 0, suppressions: 0 });
    // A schedule that lags behind its erasure leaves no suppression.
    await erasure.suppress(scheduled);
    expect(
      await suppressions.reasons([
        { ...ada, ...after },
        { ...adaByUid, ...after },
      ]),
    ).toEqual([undefined, undefined]);
  });

  it("redacts the person's address where other people's messages of the project were copied to it: the message, its timeline entries and its summary", async () => {
    const copied = (id: string, email: string, copies: { cc?: string[]; bcc?: string[] }, project = projectId): MessageDoc => ({
      ...message(id, email, null, project),
      ...copies,
    });
    const invoice = copied('msg_cc1', 'buyer@example.org', { cc: ['eve@example.org', 'accounts@example.org'] });
    const archived = copied('msg_cc2', 'buyer2@example.org', { bcc: ['eve@example.org'] });
    const otherProject = copied('msg_cc3', 'buyer@example.org', { cc: ['eve@example.org'] }, 'p-other');
    const notCopied = message('msg_cc4', 'carl@example.org', null);
    const all = [invoice, archived, otherProject, notCopied];
    await store.insertNew(all);
    await Promise.all(all.map((m) => lists.accepted(m, 'new')));
    const sent = {
      _id: `${invoice._id}:2`,
      messageId: invoice._id,
      projectId,
      event: 'sent' as const,
      sequence: 2,
      at: new Date(),
      attempt: 1,
      deliveredCopies: [
        { email: 'eve@example.org', kind: 'cc' as const },
        { email: 'accounts@example.org', kind: 'cc' as const },
      ],
    };
    const report = {
      _id: `${invoice._id}:e1`,
      messageId: invoice._id,
      projectId,
      event: 'copy_bounced' as const,
      key: 'copy_bounced:some-hash',
      sequence: 3,
      at: new Date(),
      count: 1,
      copy: { email: 'eve@example.org', kind: 'cc' as const },
    };
    await store.append([sent, report]);
    await store.keepSummaries([summaryOf(invoice, [sent, report])]);

    const subject = {
      erasureId: 'era_int2',
      projectId,
      id: null,
      email: 'eve@example.org',
      userId: null,
      requestedAt: new Date().toISOString(),
      eraseAt: new Date().toISOString(),
      before: new Date(Date.now() + 60_000).toISOString(),
    };
    expect(await erasure.erase(subject)).toMatchObject({ messages: 0, copiesRedacted: 2 });

    // Read back by another process (no hot window).
    const fresh = new MessageStore(db);
    const found = await fresh.messagesById(all.map((m) => m._id));
    expect(found.get(invoice._id)).toMatchObject({ email: 'buyer@example.org', cc: [ERASED_COPY_ADDRESS, 'accounts@example.org'] });
    expect(found.get(archived._id)).toMatchObject({ bcc: [ERASED_COPY_ADDRESS] });
    expect(found.get(otherProject._id)).toMatchObject({ cc: ['eve@example.org'] });
    expect(found.get(notCopied._id)).toBeDefined();
    const view = messageView(found.get(invoice._id)!, await fresh.timeline(invoice._id));
    const summary = await fresh.summary(projectId, invoice._id);
    for (const read of [view, summary]) {
      expect(JSON.stringify(read)).not.toContain('eve@example.org');
      expect(read).toMatchObject({
        status: 'sent',
        cc: [ERASED_COPY_ADDRESS, 'accounts@example.org'],
        delivered_copies: [
          { email: ERASED_COPY_ADDRESS, kind: 'cc' },
          { email: 'accounts@example.org', kind: 'cc' },
        ],
        copy_reports: [expect.objectContaining({ email: ERASED_COPY_ADDRESS, kind: 'cc', event: 'bounced' })],
      });
    }
    // The index is gone with the redaction: a repeat reads nothing and redacts nothing.
    expect((await lists.page(listNames.copy(projectId, 'eve@example.org'), { limit: 10 })).entries).toEqual([]);
    expect(await erasure.erase(subject)).toMatchObject({ copiesRedacted: 0 });
  });
});
