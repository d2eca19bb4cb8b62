import type { Server } from 'node:http';
import { ErasureList, PageParams } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { closeServer, startInternalServer } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { call, defaultMongoUrl, internalAuthorization, testInternalApiSecret, uniqueName } from '@postbus/testing';
import { internalApi } from '../src/http/internal-api';
import { ErasureRepository, keysOf } from '../src/model/erasure.repository';
import type { ErasureDoc } from '../src/domain/records';
import { queuedErasure } from './queued-erasure';

const PARTICIPANTS = ['mailer', 'payments', 'users'];
/** The public API's limit on a cursor (libs/contracts PageParams): the gateway hands ours on as it is. */
const CURSOR_MAX = PageParams.cursor.maxLength!;
const PROJECTS = 50;
const PER_PROJECT = 4;

describe("the erasure service's list through its internal API, on the real MongoDB-wire server", () => {
  const logger = createLogger({ service: 'erasure-test', level: 'error' });
  let db: Connection;
  let server: Server;
  let url: string;
  let auth: string;

  // A client's projects, as the gateway names them (ObjectIds).
  const projectIds = Array.from({ length: PROJECTS }, (_, p) => `65${p.toString(16).padStart(22, '0')}`);
  const erasureOf = (projectId: string, p: number, n: number): ErasureDoc => {
    // Interleaved over the projects; every fifth project shares its times with the one before (ties across projects).
    const minute = n * PROJECTS + (p % 5 === 4 ? p - 1 : p);
    const id = `era_${p.toString(16).padStart(2, '0')}${n.toString(16).padStart(30, '0')}`;
    return queuedErasure({ id, projectId, email: `person-${p}-${n}@example.com`, minute });
  };
  const recorded = projectIds.flatMap((projectId, p) => Array.from({ length: PER_PROJECT }, (_, n) => erasureOf(projectId, p, n)));
  const newestFirst = [...recorded]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (b._id < a._id ? -1 : b._id > a._id ? 1 : 0))
    .map((e) => e._id);

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('erasure-list').replace(/-/g, '_') });
    const repository = new ErasureRepository(db, PARTICIPANTS);
    await repository.init();
    for (const e of recorded) await repository.open(e, keysOf(e.projectId, e));
    ({ server, port: url } = await startInternalServer({
      service: 'erasure',
      config: { PORT: 0, INTERNAL_HOST: '127.0.0.1', INTERNAL_API_SECRET: testInternalApiSecret, QUERY_AUDIT: 'strict' },
      checks: {},
      handlers: [internalApi({ repository, participants: PARTICIPANTS, eraseAtFrom: (acceptedAt) => acceptedAt })],
      logger,
    }).then(({ server, port }) => ({ server, port: `http://127.0.0.1:${port}` })));
    auth = await internalAuthorization('erasure');
  });

  afterAll(async () => {
    if (server) await closeServer(server);
    await db?.dropDatabase();
    await db?.close();
  });

  const list = (query: Record<string, string>) =>
    call(url, 'GET', `/internal/erasures?${new URLSearchParams({ project_ids: projectIds.join(','), ...query }).toString()}`, { auth });

  async function pageThrough(limit: number, query: Record<string, string> = {}): Promise<{ ids: string[]; cursors: string[] }> {
    const ids: string[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 200; pages++) {
      const res = await list({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      const page = res.body as ErasureList;
      ids.push(...page.data.map((e) => e.id));
      if (page.next_cursor === null) return { ids, cursors };
      cursors.push(page.next_cursor);
      cursor = page.next_cursor;
    }
    throw new Error('the list never ended');
  }

  it(`14.2 a client with ${PROJECTS} projects pages through all their erasures, newest first, each once, every cursor within the public ${CURSOR_MAX} characters (QUERY_AUDIT strict)`, async () => {
    for (const limit of [7, 50]) {
      const { ids, cursors } = await pageThrough(limit);
      expect(ids).toEqual(newestFirst);
      expect(cursors.length).toBe(Math.ceil(recorded.length / limit) - (recorded.length % limit === 0 ? 0 : 1));
      for (const cursor of cursors) expect(cursor.length).toBeLessThanOrEqual(CURSOR_MAX);
    }
  });

  it('14.3 a status filter pages the same way; a cursor of other filters, or of another format, is a 422 invalid-cursor', async () => {
    const { ids, cursors } = await pageThrough(9, { status: 'queued' });
    expect(ids).toEqual(newestFirst);
    for (const cursor of cursors) expect(cursor.length).toBeLessThanOrEqual(CURSOR_MAX);
    // None matches: pages of nothing, each read up to a bounded number of merged pages, with cursors as short.
    const none = await pageThrough(9, { status: 'completed' });
    expect(none.ids).toEqual([]);
    for (const cursor of none.cursors) expect(cursor.length).toBeLessThanOrEqual(CURSOR_MAX);

    const other = await list({ status: 'completed', cursor: cursors[0]! });
    expect(other.status).toBe(422);
    expect(other.body.type).toMatch(/invalid-cursor$/);
    // The per-project positions cursors held before: none of ours now.
    const old = Buffer.from(JSON.stringify([{ [projectIds[0]!]: 3 }, 'AAAAAAAA'])).toString('base64url');
    expect((await list({ cursor: old })).status).toBe(422);
  });
});
