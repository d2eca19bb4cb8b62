import type { Server } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { ATTACHMENT_LIMITS } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { closeServer, startInternalServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { defaultMongoUrl, internalAuthorization, testInternalApiSecret, uniqueName } from '@postbus/testing';
import { MailerErasure } from '../src/domain/erasure-participant';
import { listNames } from '../src/domain/message-lists';
import { MessageRetention } from '../src/domain/message-retention';
import { attachmentsApi } from '../src/http/attachments-api';
import { AttachmentStore } from '../src/model/attachment.repository';
import { ErasuresDone } from '../src/model/erasure.repository';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import { RetryQueue } from '../src/model/retry.repository';
import { ScheduleQueue } from '../src/model/schedule.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { acceptedMessage } from './accepted-message';

const logger = createLogger({ service: 'mailer-test', level: 'error' });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('attachments in the mailer', () => {
  /** One schedule per connection: mongoose compiles its models once. */
  let schedule: ScheduleQueue;
  let db: Connection;
  let attachments: AttachmentStore;
  let store: MessageStore;
  let lists: MessageLists;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    attachments = new AttachmentStore(db);
    store = new MessageStore(db);
    lists = new MessageLists(db);
    schedule = new ScheduleQueue(db);
    await Promise.all([attachments.init(), store.init(), lists.init(), schedule.init()]);
    ({ server, url } = await serve(attachments));
  });

  // QUERY_AUDIT strict: every query on the request path must be by `_id` alone.
  const serve = async (attachmentStore: AttachmentStore) => {
    const started = await startInternalServer({
      service: 'mailer',
      config: { PORT: 0, INTERNAL_HOST: '127.0.0.1', INTERNAL_API_SECRET: testInternalApiSecret, QUERY_AUDIT: 'strict' },
      checks: {},
      handlers: [attachmentsApi(attachmentStore, lists, store)],
      logger,
    });
    return { server: started.server, url: `http://127.0.0.1:${started.port}` };
  };

  afterAll(async () => {
    if (server) await closeServer(server);
    await db?.dropDatabase();
    await db?.close();
  });

  const put = async (projectId: string, messageId: string, position: number, bytes: Buffer) =>
    fetch(`${url}/internal/projects/${projectId}/messages/${messageId}/attachments/${position}`, {
      method: 'PUT',
      headers: { authorization: await internalAuthorization('mailer'), 'content-type': 'application/octet-stream' },
      body: bytes,
    });

  it('lists the attachment sets of 200 sends to one project at once, each once', async () => {
    // Concurrent sends of one project all append to its attachment list: one by one, they claimed the same next number and gave up.
    const ids = Array.from({ length: 200 }, (_, i) => `msg_burst_${i}`);
    await Promise.all(ids.map((id) => lists.attachmentsStored('p_burst', id, new Date())));
    const listed = await lists.page(listNames.attachments('p_burst'), { limit: 500 });
    expect(listed.entries.map((e) => e.value).sort()).toEqual([...ids].sort());
    // And through the internal API, 64 files at once.
    const small = randomBytes(2000);
    const answers = await Promise.all(ids.slice(0, 64).map((id) => put('p_burst_api', id, 0, small)));
    expect(answers.map((a) => a.status)).toEqual(ids.slice(0, 64).map(() => 204));
  });

  it('stores a file over the internal API in chunks and reads the same bytes back, several chunks and an empty file alike', async () => {
    const big = randomBytes(ATTACHMENT_LIMITS.chunkBytes * 2 + 1234);
    expect((await put('p1', 'msg_big', 0, big)).status).toBe(204);
    expect((await put('p1', 'msg_big', 1, Buffer.alloc(0))).status).toBe(204);
    const back = await attachments.read('msg_big', 0, big.length);
    expect(sha256(back!)).toBe(sha256(big));
    expect((await attachments.read('msg_big', 1, 0))?.length).toBe(0);
    // Stored again (a retried request): the same documents, the same bytes.
    expect((await put('p1', 'msg_big', 0, big)).status).toBe(204);
    expect(sha256((await attachments.read('msg_big', 0, big.length))!)).toBe(sha256(big));
    // The set was listed for retention once per store of its first file.
    const listed = await lists.page(listNames.attachments('p1'), { limit: 10 });
    expect(listed.entries.map((e) => e.value)).toEqual(['msg_big', 'msg_big']);
    // A file that is not there is null; a set's chunks all go, and a repeat finds nothing.
    expect(await attachments.read('msg_none', 0, 10)).toBeNull();
    // The project holds the file's bytes once, however often it was stored, until its set goes.
    expect(await attachments.usage('p1')).toBe(big.length);
    expect(await attachments.deleteSets('p1', ['msg_big'])).toBe(4);
    expect(await attachments.read('msg_big', 0, big.length)).toBeNull();
    expect(await attachments.deleteSets('p1', ['msg_big'])).toBe(0);
    expect(await attachments.usage('p1')).toBe(0);
  });

  it('refuses a position a send cannot have and a body that is not bytes', async () => {
    expect((await put('p1', 'msg_x', ATTACHMENT_LIMITS.count, Buffer.from('x'))).status).toBe(400);
    const json = await fetch(`${url}/internal/projects/p1/messages/msg_x/attachments/0`, {
      method: 'PUT',
      headers: { authorization: await internalAuthorization('mailer'), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
  });

  it("serves a message's attachment by position with its type, and 404 for another project's or one missing", async () => {
    const png = randomBytes(5000);
    await store.insertNew([
      {
        ...acceptedMessage({ id: 'msg_inline', projectId: 'p2', email: 'ada@example.org' }),
        attachments: [{ filename: 'logo.png', contentType: 'image/png', size: png.length, sha256: sha256(png), contentId: 'logo' }],
      },
    ]);
    await put('p2', 'msg_inline', 0, png);
    const auth = { authorization: await internalAuthorization('mailer') };
    const got = await fetch(`${url}/internal/projects/p2/messages/msg_inline/attachments/0`, { headers: auth });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(png)).toBe(true);
    expect((await fetch(`${url}/internal/projects/p1/messages/msg_inline/attachments/0`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${url}/internal/projects/p2/messages/msg_inline/attachments/1`, { headers: auth })).status).toBe(404);
  });

  it('never serves bytes other than the ones the send gave: stored content whose SHA-256 differs is a 404', async () => {
    const pdf = randomBytes(3000);
    await store.insertNew([
      {
        ...acceptedMessage({ id: 'msg_damaged', projectId: 'p2', email: 'ada@example.org' }),
        attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', size: pdf.length, sha256: sha256(pdf) }],
      },
    ]);
    const other = Buffer.from(pdf);
    other[0] = other[0]! ^ 0xff;
    await put('p2', 'msg_damaged', 0, other);
    const auth = { authorization: await internalAuthorization('mailer') };
    const damaged = await fetch(`${url}/internal/projects/p2/messages/msg_damaged/attachments/0`, { headers: auth });
    expect(damaged.status).toBe(404);
    expect(((await damaged.json()) as { detail: string }).detail).toMatch(/not what the send gave/);
    await put('p2', 'msg_damaged', 0, pdf);
    const good = await fetch(`${url}/internal/projects/p2/messages/msg_damaged/attachments/0`, { headers: auth });
    expect(good.status).toBe(200);
    expect(sha256(Buffer.from(await good.arrayBuffer()))).toBe(sha256(pdf));
  });

  it("are erased with the person's messages, and another person's stay", async () => {
    const suppressions = new Suppressions(db, (email) => `hash of ${email}`);
    const retries = new RetryQueue(db);
    const done = new ErasuresDone(db);
    await Promise.all([suppressions.init(), retries.init(), done.init()]);
    const erasure = new MailerErasure({ store, lists, suppressions, retries, schedule, done, attachments });
    const file = randomBytes(1000);
    const withFile = (id: string, email: string) => ({
      ...acceptedMessage({ id, projectId: 'p3', email }),
      attachments: [{ filename: 'a.pdf', contentType: 'application/pdf', size: file.length, sha256: sha256(file) }],
    });
    const eve = withFile('msg_eve', 'eve@example.org');
    const dan = withFile('msg_dan', 'dan@example.org');
    await store.insertNew([eve, dan]);
    await Promise.all([eve, dan].map((m) => lists.accepted(m, 'new')));
    await Promise.all([put('p3', 'msg_eve', 0, file), put('p3', 'msg_dan', 0, file)]);
    const result = await erasure.erase({
      erasureId: 'era_att',
      projectId: 'p3',
      id: null,
      email: 'eve@example.org',
      userId: null,
      before: new Date().toISOString(),
    });
    expect(result).toMatchObject({ messages: 1, attachmentChunks: 1 });
    expect(await attachments.read('msg_eve', 0, file.length)).toBeNull();
    expect(await attachments.read('msg_dan', 0, file.length)).not.toBeNull();
    expect(await attachments.usage('p3')).toBe(file.length);
  });

  it('are purged by retention with the sets listed before the cutoff, a set whose trigger never came included', async () => {
    const file = randomBytes(100);
    await put('p4', 'msg_orphan', 0, file);
    await put('p4', 'msg_orphan', 1, file);
    await put('p4', 'msg_fresh', 0, file);
    const retention = new MessageRetention({ store, lists, attachments, schedule, logger, retentionDays: 30, intervalMs: 3_600_000 });
    // Nothing is 30 days old yet.
    expect(await retention.purge()).toMatchObject({ attachmentChunks: 0 });
    expect(await attachments.read('msg_orphan', 1, file.length)).not.toBeNull();
    // Thirty-one days on, everything stored now is past the window.
    const purged = await retention.purge(new Date(Date.now() + 31 * 86_400_000));
    expect(purged.attachmentChunks).toBeGreaterThanOrEqual(3);
    for (const [id, position] of [
      ['msg_orphan', 0],
      ['msg_orphan', 1],
      ['msg_fresh', 0],
    ] as const)
      expect(await attachments.read(id, position, file.length)).toBeNull();
    expect(await attachments.usage('p4')).toBe(0);
  });

  describe('under a quota per project', () => {
    const QUOTA = 10_000;
    let quotaServer: Server;
    let quotaUrl: string;

    beforeAll(async () => {
      ({ server: quotaServer, url: quotaUrl } = await serve(new AttachmentStore(db, QUOTA)));
    });

    afterAll(async () => {
      if (quotaServer) await closeServer(quotaServer);
    });

    const putLimited = async (projectId: string, messageId: string, position: number, bytes: Buffer) =>
      fetch(`${quotaUrl}/internal/projects/${projectId}/messages/${messageId}/attachments/${position}`, {
        method: 'PUT',
        headers: { authorization: await internalAuthorization('mailer'), 'content-type': 'application/octet-stream' },
        body: bytes,
      });

    it("refuses with a 413 the file that would pass the project's quota, leaving none of that send's files, and another project is not held to it", async () => {
      expect((await putLimited('pq', 'msg_a', 0, randomBytes(6000))).status).toBe(204);
      expect((await putLimited('pq', 'msg_b', 0, randomBytes(3000))).status).toBe(204);
      const refused = await putLimited('pq', 'msg_b', 1, randomBytes(2000));
      expect(refused.status).toBe(413);
      expect(await refused.json()).toMatchObject({ status: 413, type: '/problems/attachment-quota-exceeded' });
      // The refused send's first file went with it: only msg_a's bytes are held.
      expect(await attachments.read('msg_b', 0, 3000)).toBeNull();
      expect(await attachments.usage('pq')).toBe(6000);
      expect((await putLimited('pq-other', 'msg_c', 0, randomBytes(9000))).status).toBe(204);
      // Space comes back as sets go (retention, erasure).
      expect(await attachments.deleteSets('pq', ['msg_a'])).toBe(1);
      expect((await putLimited('pq', 'msg_d', 0, randomBytes(9000))).status).toBe(204);
      expect(await attachments.usage('pq')).toBe(9000);
    });

    it('counts racing sends exactly, and never lets them past the quota together', async () => {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => putLimited('pq-race', `msg_race_${i}`, 0, randomBytes(2000))));
      const stored = answers.filter((a) => a.status === 204).length;
      expect(answers.every((a) => a.status === 204 || a.status === 413)).toBe(true);
      expect(stored).toBeGreaterThanOrEqual(1);
      expect(stored).toBeLessThanOrEqual(5);
      expect(await attachments.usage('pq-race')).toBe(stored * 2000);
    });
  });
});
