import { connectDb, onRequestPath, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { ErasureRepository, keysOf } from '../src/model/erasure.repository';
import type { ErasureDoc } from '../src/domain/records';
import { queuedErasure } from './queued-erasure';

const PARTICIPANTS = ['mailer', 'payments', 'users'];

describe('ErasureRepository on the real MongoDB-wire server', () => {
  let db: Connection;
  let repository: ErasureRepository;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('erasure').replace(/-/g, '_') });
    repository = new ErasureRepository(db, PARTICIPANTS);
    await repository.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  const erasureOf = (projectId: string, n: number): ErasureDoc =>
    queuedErasure({
      id: `era_${projectId}_${n}`,
      projectId,
      email: `person-${n}@example.com`,
      userId: `u-${n}`,
      minute: n,
    });

  it('14.1 erasure: the list per project (merged over projects, newest first), open requests and confirmations are read by _id only (QUERY_AUDIT strict)', async () => {
    // Two projects' erasures, interleaved in time; one recorded twice (a redelivered command).
    const recorded = Array.from({ length: 7 }, (_, n) => erasureOf(n % 2 ? 'proj-b' : 'proj-a', n));
    for (const e of [...recorded, recorded[3]!]) await repository.open(e, keysOf(e.projectId, e));

    const pages: string[][] = [];
    await onRequestPath('strict', async () => {
      expect((await repository.openRequest(keysOf('proj-b', { email: 'person-3@example.com' })))?.erasureId).toBe('era_proj-b_3');
      expect((await repository.openRequest(keysOf('proj-b', { userId: 'u-5' })))?.erasureId).toBe('era_proj-b_5');
      expect(await repository.openRequest(keysOf('proj-a', { userId: 'u-3' }))).toBeNull();

      let from;
      for (;;) {
        const page = await repository.page(['proj-a', 'proj-b'], 3, from);
        pages.push(page.map((l) => l.erasure!._id));
        if (page.length < 3) break;
        from = page[page.length - 1]!.after;
      }
      expect(await repository.page(['proj-b'], 10)).toHaveLength(3);

      const confirm = (service: string) =>
        repository.confirm({ _id: `era_proj-a_0:${service}`, erasureId: 'era_proj-a_0', service, erased: { n: 1 }, at: new Date() });
      expect((await confirm('users')).map((c) => c.service)).toEqual(['users']);
      expect((await confirm('mailer')).map((c) => c.service).sort()).toEqual(['mailer', 'users']);
      expect((await confirm('users')).map((c) => c.service).sort()).toEqual(['mailer', 'users']);
      const all = await repository.confirmations(['era_proj-a_0', 'era_proj-a_2']);
      expect(all.get('era_proj-a_0')).toHaveLength(2);
      expect(all.get('era_proj-a_2')).toEqual([]);

      await repository.markExecuting('era_proj-a_0', new Date());
      await repository.complete((await repository.byId('era_proj-a_0'))!, new Date(), new Date(Date.now() + 60_000));
      expect(await repository.openRequest(keysOf('proj-a', { email: 'person-0@example.com' }))).toBeNull();
      expect((await repository.byId('era_proj-a_0'))?.status).toBe('completed');
    });
    expect(pages).toEqual([
      ['era_proj-a_6', 'era_proj-b_5', 'era_proj-a_4'],
      ['era_proj-b_3', 'era_proj-a_2', 'era_proj-b_1'],
      ['era_proj-a_0'],
    ]);
  });
});
