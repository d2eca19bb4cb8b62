import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { connectDb, type Connection } from '@postbus/db';
import { closeServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { call, defaultMongoUrl, internalAuthorization, uniqueDbName } from '@postbus/testing';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { Suppressions } from '../src/model/suppression.repository';
import { startMessageLogServer } from './message-log-server';

/**
 * The check a Postmark-compatible send makes before it answers (its synchronous 406): which of a
 * few addresses the project's mail would not reach, read by the suppression markers' _id (the
 * server audits every read: QUERY_AUDIT strict).
 */
describe('the suppression check of the internal API', () => {
  let db: Connection;
  let suppressions: Suppressions;
  let rollups: StatusRollups;
  let server: Server | undefined;
  let url: string;
  const P = 'p-suppression-check';
  const at = new Date(Date.UTC(2026, 10, 27, 9));
  const hashAddress = (email: string) => createHmac('sha256', 'the erasure audit key of this test').update(email).digest('hex');

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueDbName('t') });
    const store = new MessageStore(db);
    const lists = new MessageLists(db);
    suppressions = new Suppressions(db, hashAddress);
    rollups = new StatusRollups(db, 'suppression-check', 60_000);
    await Promise.all([store.init(), lists.init(), suppressions.init(), rollups.init()]);
    ({ server, url } = await startMessageLogServer(
      { store, lists, rollups, suppressions },
      createLogger({ service: 'mailer-test', level: 'error' }),
    ));
  });

  afterAll(async () => {
    if (server) await closeServer(server);
    await rollups?.stop();
    await db?.dropDatabase();
    await db?.close();
  });

  const check = async (projectId: string, emails: unknown) =>
    call(url, 'POST', `/internal/projects/${projectId}/suppressions/check`, {
      auth: await internalAuthorization('mailer'),
      json: { emails },
    });

  it('names the suppressed ones among the addresses, normalised, with the reason that wins; the others not at all', async () => {
    await suppressions.block(P, 'bounced@example.org', 'hard_bounce', at);
    await suppressions.unsubscribed(P, 'left@example.org', at);
    const res = await check(P, ['Bounced@Example.org', 'fine@example.org', 'left@example.org', 'bounced@example.org']);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { email: 'bounced@example.org', reason: 'hard_bounce' },
        { email: 'left@example.org', reason: 'unsubscribed' },
      ],
    });
  });

  it('reads one project only', async () => {
    const res = await check('another-project', ['bounced@example.org']);
    expect(res.body).toEqual({ data: [] });
  });

  it('checks a whole batch of 500 addresses of the longest form', async () => {
    const longest = (i: number) =>
      `${String(i).padStart(3, '0')}${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.org`;
    const emails = Array.from({ length: 500 }, (_, i) => longest(i));
    expect(emails[0]!.length).toBe(254);
    const res = await check(P, emails);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('refuses a body that is not a list of 1 to 500 addresses', async () => {
    expect((await check(P, [])).status).toBe(400);
    expect(
      (
        await check(
          P,
          Array.from({ length: 501 }, (_, i) => `a${i}@example.org`),
        )
      ).status,
    ).toBe(400);
  });
});
