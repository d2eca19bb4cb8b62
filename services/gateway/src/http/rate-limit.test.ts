import type { Request, Response } from 'express';
import { TooManyRequestsError } from '@postbus/errors';
import { createLogger } from '@postbus/logger';
import { AuthFailureLimit, messageRateLimit, rateLimit, SharedCounters, type RatePolicy, type UsageReport } from './rate-limit';

const logger = createLogger({ service: 'test', level: 'error' });

/** Instances whose reports reach each other when share() is called, as the bus would carry them. */
function cluster(size: number, clock: { now: number }): SharedCounters[] {
  const instances: SharedCounters[] = [];
  const publish = (report: UsageReport) => Promise.resolve(instances.forEach((i) => i.receive(report)));
  for (let n = 0; n < size; n++)
    instances.push(new SharedCounters({ instance: `gw_${n}`, publish, shareEveryMs: 100, logger, now: () => clock.now }));
  return instances;
}

describe('SharedCounters', () => {
  const policy: RatePolicy = { name: 'client', limit: 10, windowMs: 1000 };

  it('13.10 rate limits are shared by all gateway instances: two instances together admit the limit, not twice it', async () => {
    const clock = { now: 1_000_000 };
    const [a, b] = cluster(2, clock);
    expect(Array.from({ length: 6 }, () => a!.take(policy, 'cl_1').allowed).every(Boolean)).toBe(true);
    a!.share();
    await Promise.resolve();
    // b knows of a's 6: 4 more pass there, then both refuse
    expect(Array.from({ length: 6 }, () => b!.take(policy, 'cl_1').allowed).filter(Boolean)).toHaveLength(4);
    b!.share();
    await Promise.resolve();
    expect(a!.take(policy, 'cl_1')).toMatchObject({ allowed: false, retryAfter: 1 });
    expect(a!.take(policy, 'cl_2').allowed).toBe(true); // every subject has its own count
    // two windows later the count is forgotten
    clock.now += 2000;
    a!.share();
    expect(Array.from({ length: 12 }, () => a!.take(policy, 'cl_1').allowed).filter(Boolean)).toHaveLength(10);
  });

  it('weighs the previous window, so a burst at the edge of a window does not pass twice the limit', () => {
    const clock = { now: 1_000_900 }; // 100 ms before a window ends
    const [a] = cluster(1, clock);
    expect(Array.from({ length: 12 }, () => a!.take(policy, 'x').allowed).filter(Boolean)).toHaveLength(10);
    clock.now += 200; // 100 ms into the next window: 90 % of the last one still counts
    expect(Array.from({ length: 12 }, () => a!.take(policy, 'x').allowed).filter(Boolean)).toHaveLength(1);
  });

  it('an older report of another instance never lowers what it counted', async () => {
    const clock = { now: 5_000_000 };
    const [a] = cluster(1, clock);
    const key = `client|5001000|y|1000`;
    a!.receive({ instance: 'other', counts: { [key]: 8 } });
    a!.receive({ instance: 'other', counts: { [key]: 3 } });
    expect(Array.from({ length: 5 }, () => a!.take(policy, 'y').allowed).filter(Boolean)).toHaveLength(2);
    a!.receive({ instance: 'gw_0', counts: { [key]: 100 } }); // its own report, back from the bus
    expect(a!.check(policy, 'y').allowed).toBe(false);
    await Promise.resolve();
  });
});

describe('rateLimit', () => {
  const request = (clientId: string) => ({ client: { clientId, scope: 'full' } }) as unknown as Request;

  it('says when to retry, in Retry-After and the RateLimit headers', () => {
    const [counters] = cluster(1, { now: 7_000_000 });
    const limit = rateLimit(counters!, 1);
    limit(request('a'), {} as Response, () => undefined);
    try {
      void limit(request('a'), {} as Response, () => undefined);
      throw new Error('not limited');
    } catch (error) {
      expect(error).toBeInstanceOf(TooManyRequestsError);
      const { status, headers } = error as TooManyRequestsError;
      expect(status).toBe(429);
      expect(headers).toMatchObject({ 'Retry-After': '1', 'RateLimit-Policy': '"client";q=1;w=1', RateLimit: '"client";r=0;t=1' });
    }
  });

  it('is off at 0', () => {
    const [counters] = cluster(1, { now: 0 });
    const limit = rateLimit(counters!, 0);
    let passed = 0;
    for (let i = 0; i < 100; i++) void limit(request('a'), {} as Response, () => passed++);
    expect(passed).toBe(100);
  });
});

describe('messageRateLimit', () => {
  const request = (clientId: string, messages: number) => ({ client: { clientId, scope: 'full' }, messages }) as unknown as Request;
  const messagesOf = (req: Request) => (req as unknown as { messages: number }).messages;

  it('counts each message of a request: batches cannot pass the limit of messages that sends would', () => {
    const clock = { now: 9_000_000 };
    const [counters] = cluster(1, clock);
    const limit = messageRateLimit(counters!, 1000, messagesOf);
    const passes = (clientId: string, messages: number) => {
      try {
        limit(request(clientId, messages), {} as Response, () => undefined);
        return true;
      } catch (error) {
        expect(error).toBeInstanceOf(TooManyRequestsError);
        expect((error as TooManyRequestsError).headers).toMatchObject({ 'RateLimit-Policy': '"messages";q=1000;w=1' });
        return false;
      }
    };
    expect([passes('a', 500), passes('a', 499), passes('a', 2), passes('a', 1)]).toEqual([true, true, false, true]);
    expect(passes('b', 500)).toBe(true); // every client has its own count
    expect(passes('a', 0)).toBe(true); // a request that sends nothing is the request limit's
    // A request of more than the whole limit passes in a window of its own, and fills it.
    clock.now += 2000;
    expect([passes('c', 5000), passes('c', 1)]).toEqual([true, false]);
  });
});

describe('AuthFailureLimit (issue 30)', () => {
  const from = (ip: string) => ({ ip, socket: {} }) as unknown as Request;
  const digest = (key: string) => Buffer.from(key.padEnd(32, '.'));
  const refused = (run: () => void): boolean => {
    try {
      run();
      return false;
    } catch (error) {
      expect(error).toBeInstanceOf(TooManyRequestsError);
      return true;
    }
  };

  it('locks a (client, address) pair: the same client elsewhere and other clients at the same address go on', () => {
    const clock = { now: 9_000_000 };
    const [counters] = cluster(1, clock);
    const limit = new AuthFailureLimit(counters!, 3, () => clock.now);
    const nat = from('203.0.113.7');
    for (let i = 0; i < 3; i++) limit.failed(nat, 'cl_victim');
    expect(refused(() => limit.assertAllowed(nat, 'cl_victim', digest('guess')))).toBe(true);
    expect(refused(() => limit.assertAllowed(nat, 'cl_neighbour', digest('theirs')))).toBe(false);
    expect(refused(() => limit.assertAllowed(from('198.51.100.1'), 'cl_victim', digest('guess')))).toBe(false);
    // A minute or two later it has cooled down.
    clock.now += 120_000;
    expect(refused(() => limit.assertAllowed(nat, 'cl_victim', digest('guess')))).toBe(false);
  });

  it('a key that authenticated from the address before keeps working there; any other key is refused unchecked, right or wrong', () => {
    const clock = { now: 9_000_000 };
    const [counters] = cluster(1, clock);
    const limit = new AuthFailureLimit(counters!, 3, () => clock.now);
    const nat = from('203.0.113.7');
    limit.succeeded(nat, digest('backend'));
    for (let i = 0; i < 5; i++) limit.failed(nat, 'cl_victim');
    expect(refused(() => limit.assertAllowed(nat, 'cl_victim', digest('backend')))).toBe(false);
    expect(refused(() => limit.assertAllowed(nat, 'cl_victim', digest('never-used-here')))).toBe(true);
    // Known from this address only: the same key from elsewhere has no such standing (and needs none there).
    for (let i = 0; i < 5; i++) limit.failed(from('198.51.100.1'), 'cl_victim');
    expect(refused(() => limit.assertAllowed(from('198.51.100.1'), 'cl_victim', digest('backend')))).toBe(true);
    // Still known an hour on while in use, and forgotten two hours after its last use.
    clock.now += 50 * 60_000;
    limit.succeeded(nat, digest('backend'));
    clock.now += 70 * 60_000;
    for (let i = 0; i < 5; i++) limit.failed(nat, 'cl_victim');
    expect(refused(() => limit.assertAllowed(nat, 'cl_victim', digest('backend')))).toBe(false);
    clock.now += 2 * 60 * 60_000;
    for (let i = 0; i < 5; i++) limit.failed(nat, 'cl_victim');
    expect(refused(() => limit.assertAllowed(nat, 'cl_victim', digest('backend')))).toBe(true);
  });

  it('failures and known keys are shared by every instance', async () => {
    const clock = { now: 9_000_000 };
    const [a, b] = cluster(2, clock);
    const onA = new AuthFailureLimit(a!, 3, () => clock.now);
    const onB = new AuthFailureLimit(b!, 3, () => clock.now);
    const nat = from('203.0.113.7');
    onA.succeeded(nat, digest('backend'));
    for (let i = 0; i < 3; i++) onA.failed(nat, 'cl_victim');
    a!.share();
    await Promise.resolve();
    expect(refused(() => onB.assertAllowed(nat, 'cl_victim', digest('guess')))).toBe(true);
    expect(refused(() => onB.assertAllowed(nat, 'cl_victim', digest('backend')))).toBe(false);
  });

  it('is off at 0', () => {
    const [counters] = cluster(1, { now: 0 });
    const limit = new AuthFailureLimit(counters!, 0);
    for (let i = 0; i < 100; i++) limit.failed(from('203.0.113.7'), 'cl_x');
    expect(refused(() => limit.assertAllowed(from('203.0.113.7'), 'cl_x', digest('k')))).toBe(false);
  });
});
