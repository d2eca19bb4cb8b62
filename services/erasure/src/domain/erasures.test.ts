import type { Publisher } from '@postbus/bus';
import type { Logger } from '@postbus/logger';
import { loadConfig } from '@postbus/config';
import { messageContext } from '@postbus/testing/fakes';
import { ErasureConfig } from '../config';
import { NotYetKnownError } from '@postbus/bus';
import { Erasures } from './erasures';
import type { KnownUser } from '@postbus/db';
import type { ConfirmationDoc, ErasureDoc, OpenRequestDoc } from './records';

const ctx = (id: string, time = '2026-01-03T00:00:05.000Z') => messageContext(id, { time });

/** An in-memory stand-in for the repository: the logic's decisions are what is under test here. */
function fakeRepository() {
  const erasures = new Map<string, ErasureDoc>();
  const openKeys = new Map<string, OpenRequestDoc>();
  const confirmations: ConfirmationDoc[] = [];
  const due: string[] = [];
  const known = new Map<string, KnownUser>();
  const repo = {
    erasures,
    done: [] as string[],
    due: {
      done: (id: string) => {
        repo.done.push(id);
        return Promise.resolve();
      },
    },
    users: {
      find: (projectId: string, ref: { email?: string; userId?: string }) =>
        Promise.resolve(known.get(ref.email ? `${projectId}:email:${ref.email}` : `${projectId}:uid:${ref.userId}`) ?? null),
    },
    personKeys: (projectId: string, who: { email: string | null; userId: string | null }) => [
      ...(who.email ? [`${projectId}:email:${who.email}`] : []),
      ...(who.userId ? [`${projectId}:uid:${who.userId}`] : []),
    ],
    openRequest: (keys: string[]) => Promise.resolve(keys.map((k) => openKeys.get(k)).find(Boolean) ?? null),
    claimKey: (key: string, erasureId: string, eraseAt: Date) => {
      if (!openKeys.has(key)) openKeys.set(key, { _id: key, erasureId, eraseAt });
      return Promise.resolve(openKeys.get(key)!.erasureId);
    },
    open: (erasure: ErasureDoc, keys: string[]) => {
      for (const key of keys) if (!openKeys.has(key)) openKeys.set(key, { _id: key, erasureId: erasure._id, eraseAt: erasure.eraseAt });
      if (!erasures.has(erasure._id)) erasures.set(erasure._id, { ...erasure });
      due.push(erasure._id);
      return Promise.resolve();
    },
    aliases: new Map<string, string>(),
    alias: (id: string, erasureId: string) => {
      repo.aliases.set(id, erasureId);
      return Promise.resolve();
    },
    byId: (id: string) => Promise.resolve(erasures.has(id) ? { ...erasures.get(id)! } : null),
    requeue: (id: string) => due.push(id),
    confirmations: (ids: string[]) => Promise.resolve(new Map(ids.map((id) => [id, confirmations.filter((c) => c.erasureId === id)]))),
    claimDue: () => Promise.resolve(due.splice(0).map((id) => ({ id, payload: {} }))),
    markExecuting: (id: string, at: Date) => {
      const e = erasures.get(id)!;
      if (e.status === 'queued') Object.assign(e, { status: 'executing', executedAt: at });
      return Promise.resolve();
    },
    confirm: (c: ConfirmationDoc) => {
      if (!confirmations.some((x) => x._id === c._id)) confirmations.push(c);
      return Promise.resolve(confirmations.filter((x) => x.erasureId === c.erasureId));
    },
    complete: (erasure: ErasureDoc, completedAt: Date) => {
      Object.assign(erasures.get(erasure._id)!, { status: 'completed', completedAt });
      for (const [key, o] of openKeys) if (o.erasureId === erasure._id) openKeys.delete(key);
      due.push(erasure._id); // the sweep
      return Promise.resolve();
    },
    forgetSubject: (erasure: ErasureDoc) => {
      Object.assign(erasures.get(erasure._id)!, { email: null, userId: null, subjectId: null });
      return Promise.resolve();
    },
    know: (user: KnownUser) => known.set(user._id, user),
  };
  return repo;
}

function setup(now = new Date('2026-01-03T00:00:00.000Z')) {
  const repository = fakeRepository();
  const published: Array<{ type: string; data: Record<string, unknown>; id: string | undefined }> = [];
  const publisher = {
    publish: (_topic: string, type: string, _key: string, data: Record<string, unknown>, options?: { id?: string }) => {
      published.push({ type, data, id: options?.id });
      return Promise.resolve();
    },
  } as unknown as Publisher;
  const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  const erasures = new Erasures({
    repository,
    publisher,
    logger,
    participants: ['users', 'mailer'],
    auditKey: 'k'.repeat(32),
    confirmTimeoutMs: 60_000,
    sweepDelayMs: 1000,
    userWaitMs: 30_000,
    now: () => now,
  });
  return { repository, published, erasures };
}

const request = (erasureId: string, user: { email?: string; userId?: string }, acceptedAt = '2026-01-01T00:00:00.000Z') => ({
  erasureId,
  projectId: 'p1',
  user,
  acceptedAt,
  eraseAt: '2026-01-03T00:00:00.000Z',
});

describe('the erasure queue', () => {
  it('schedules a request once per person, with the email hashed for the audit', async () => {
    const { repository, published, erasures } = setup();
    repository.know({ _id: 'p1:email:ada@example.org', projectId: 'p1', id: 'u1', email: 'ada@example.org', userId: 'ada-1' });
    await erasures.request(request('era_a', { email: 'ada@example.org' }), ctx('c1'));
    await erasures.request(request('era_a', { email: 'ada@example.org' }), ctx('c1')); // redelivered
    await erasures.request(request('era_b', { userId: 'ada-1' }), ctx('c2')); // the same person, by user_id
    expect(published.map((p) => [p.type, p.id])).toEqual([
      ['user.erasure_scheduled', 'era_a:scheduled'],
      ['user.erasure_scheduled', 'era_a:scheduled'],
    ]);
    expect(published[0]!.data).toMatchObject({ erasureId: 'era_a', id: 'u1', email: 'ada@example.org', userId: 'ada-1' });
    expect([...repository.erasures.keys()]).toEqual(['era_a']);
    expect(repository.aliases.get('era_b')).toBe('era_a'); // the racing request's id leads to the first
    expect(repository.erasures.get('era_a')!.emailHmac).toMatch(/^[a-f0-9]{64}$/);
  });

  it('two requests for one person handled at once (both finding nothing open) are one erasure', async () => {
    const { repository, published, erasures } = setup();
    repository.know({ _id: 'p1:email:bo@example.org', projectId: 'p1', id: 'u2', email: 'bo@example.org', userId: 'bo-1' });
    repository.know({ _id: 'p1:uid:bo-1', projectId: 'p1', id: 'u2', email: 'bo@example.org', userId: 'bo-1' });
    await Promise.all([
      erasures.request(request('era_x', { email: 'bo@example.org' }), ctx('c1')),
      erasures.request(request('era_y', { userId: 'bo-1' }), ctx('c2')),
    ]);
    expect([...repository.erasures.keys()]).toEqual(['era_x']);
    expect(repository.aliases.get('era_y')).toBe('era_x');
    expect(published.map((p) => p.id)).toEqual(['era_x:scheduled']);
  });

  it('waits for a user named only by an unknown user_id, then goes ahead without the email', async () => {
    const { published, erasures } = setup(new Date('2026-01-01T00:00:10.000Z'));
    await expect(erasures.request(request('era_c', { userId: 'late' }), ctx('c3'))).rejects.toBeInstanceOf(NotYetKnownError);
    const later = setup(new Date('2026-01-01T00:01:00.000Z'));
    await later.erasures.request(request('era_c', { userId: 'late' }), ctx('c3'));
    expect(later.published[0]!.data).toMatchObject({ email: null, userId: 'late' });
    expect(published).toEqual([]);
  });

  it('executes when due, completes on the last confirmation, then sweeps and forgets who it was', async () => {
    const { repository, published, erasures } = setup();
    await erasures.request(request('era_d', { email: 'bo@example.org' }), ctx('c4'));
    published.length = 0;
    expect(await erasures.runDue()).toBe(1);
    expect(published.map((p) => [p.type, p.id])).toEqual([['erasure.execute', 'era_d:execute']]);
    expect(published[0]!.data).toMatchObject({ email: 'bo@example.org', before: '2026-01-03T00:00:00.000Z' });

    const confirmed = (service: string) => ({ erasureId: 'era_d', projectId: 'p1', service, erased: {} });
    await erasures.confirmed(confirmed('users'), ctx('x:users', '2026-01-03T00:00:01.000Z'));
    // The lease ran out before the mailer confirmed: the same command goes again, with the same cutoff.
    repository.requeue('era_d');
    await erasures.runDue();
    const executions = published.filter((p) => p.id === 'era_d:execute');
    expect(executions).toHaveLength(2);
    expect(executions[1]!.data).toEqual(executions[0]!.data);
    expect(repository.erasures.get('era_d')!.status).toBe('executing');
    await erasures.confirmed(confirmed('mailer'), ctx('x:mailer', '2026-01-03T00:00:02.000Z'));
    await erasures.confirmed(confirmed('mailer'), ctx('x:mailer', '2026-01-03T00:00:02.000Z')); // redelivered: no second user.erased
    expect(repository.erasures.get('era_d')).toMatchObject({ status: 'completed', completedAt: new Date('2026-01-03T00:00:02.000Z') });
    const erased = published.filter((p) => p.type === 'user.erased');
    expect(erased).toHaveLength(1);
    expect(JSON.stringify(erased[0]!.data)).not.toContain('bo@example.org');

    await erasures.runDue(); // the sweep
    expect(published.at(-1)).toMatchObject({ type: 'erasure.execute', id: 'era_d:sweep', data: { email: 'bo@example.org' } });
    expect(repository.erasures.get('era_d')).toMatchObject({ email: null, userId: null, subjectId: null });
    expect(repository.done).toEqual(['era_d']);
  });
});

describe('the erasure configuration', () => {
  it('takes ISO 8601 durations for the delay and names a bad one', () => {
    for (const delay of ['P2D', 'PT3S', 'P1DT12H', 'PT0.5S', 'P1W'])
      expect(loadConfig(ErasureConfig, { ERASURE_DELAY: delay }).ERASURE_DELAY).toBe(delay);
    for (const delay of ['2D', 'P', 'PT', 'P2DT', '-P1D'])
      expect(() => loadConfig(ErasureConfig, { ERASURE_DELAY: delay })).toThrow(/ERASURE_DELAY/);
  });
});
