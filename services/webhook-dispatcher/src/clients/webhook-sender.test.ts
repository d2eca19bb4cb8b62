import { createServer, type Server } from 'node:http';
import { lookup } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { AddressPolicy } from '@postbus/http';
import { createLogger } from '@postbus/logger';
import { DeliveryWorker, type WorkerDeps } from '../domain/delivery-worker';
import type { AttemptDoc, DeliveryDoc, EndpointDoc } from '../domain/records';
import { newSecret } from '../model/endpoint.repository';
import { send, signedHeaders } from './webhook-sender';

describe('signedHeaders', () => {
  it('carries one Standard Webhooks signature per secret, each verifiable on its own', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const body = JSON.stringify({ type: 'message.sent', timestamp: new Date().toISOString(), data: { message_id: 'msg_1' } });
    const headers = signedHeaders('msg_abc', body, [current, previous]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ type: 'message.sent' });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ type: 'message.sent' });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it("signs under Svix's names, as Resend sends them, with the same values Standard Webhooks would have", () => {
    const secret = newSecret();
    const body = JSON.stringify({ type: 'email.delivered', created_at: new Date().toISOString(), data: { email_id: 'msg_1' } });
    const at = new Date();
    const svix = signedHeaders('msg_abc', body, [secret], at, 'svix');
    expect(Object.keys(svix).sort()).toEqual(['svix-id', 'svix-signature', 'svix-timestamp']);
    const standard = signedHeaders('msg_abc', body, [secret], at);
    expect(Object.values(svix)).toEqual(Object.values(standard));
    // What svix's Webhook.verify does: it reads svix-* as webhook-* (the e2e test runs svix itself).
    const renamed = {
      'webhook-id': svix['svix-id']!,
      'webhook-timestamp': svix['svix-timestamp']!,
      'webhook-signature': svix['svix-signature']!,
    };
    expect(new Webhook(secret).verify(body, renamed)).toMatchObject({ type: 'email.delivered' });
    expect(() => new Webhook(secret).verify(body.replace('msg_1', 'msg_2'), renamed)).toThrow();
  });
});

describe('send', () => {
  /** One attempt's options but the URL and how addresses are looked up and judged. */
  const attemptOf = () => ({
    webhookId: 'msg_1',
    attempt: 1,
    payload: '{}',
    secrets: [newSecret()],
    signatureHeaders: 'standard-webhooks' as const,
    timeoutMs: 2_000,
  });

  it('reads only the first kilobyte, does not follow redirects, and reports a refused connection', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/big') res.end('x'.repeat(100_000));
      else res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const base = { ...attemptOf(), lookup, connectRefusal: () => null };
    try {
      const big = await send({ ...base, url: `http://127.0.0.1:${port}/big` });
      expect(big).toMatchObject({ statusCode: 200, error: null });
      expect(big.response!.length).toBeLessThanOrEqual(1024);
      expect((await send({ ...base, url: `http://127.0.0.1:${port}/redirect` })).statusCode).toBe(302);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    const refused = await send({ ...base, url: `http://127.0.0.1:1/nobody-listens` });
    expect(refused.statusCode).toBeNull();
    expect(refused.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses, without connecting, an address written in the URL that the policy in force refuses (never looked up)', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('ok')).on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    // Saved while the operator admitted this port; admitted no more.
    const policy = new AddressPolicy([]);
    const base = { ...attemptOf(), lookup: policy.lookup };
    try {
      for (const host of ['127.0.0.1', '[::127.0.0.1]', '[::ffff:127.0.0.1]', '2130706433']) {
        const result = await send({ ...base, connectRefusal: policy.connectRefusal, url: `http://${host}:${port}/hook` });
        expect(result).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: .*loopback/) });
      }
      expect(connections).toBe(0);
      const admitted = new AddressPolicy([`127.0.0.1:${port}`]);
      const ok = await send({ ...base, connectRefusal: admitted.connectRefusal, url: `http://127.0.0.1:${port}/hook` });
      expect(ok.statusCode).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

/** A receiver that answers 200 and counts the requests it holds at once. */
async function receiver(): Promise<{ url: string; received: string[]; maxInFlight: () => number; close: () => Promise<void> }> {
  const received: string[] = [];
  let inFlight = 0;
  let max = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    received.push(String(req.headers['webhook-id']));
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        inFlight--;
        res.end('ok');
      }, 5),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    maxInFlight: () => max,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the delivery worker sending through send', () => {
  it('frees a request slot once the answer is in, and finishes a delivery only once its attempt is recorded', async () => {
    const target = await receiver();
    // What the worker reads of an endpoint and of a delivery.
    const endpoint = { _id: 'we_1', url: target.url, enabled: true } as EndpointDoc;
    const delivery = (n: number) => ({ _id: `msg_${n}`, endpointId: 'we_1', payload: JSON.stringify({ n }) }) as DeliveryDoc;
    // Recording is held until the test lets it go: a slow database.
    const recorded: AttemptDoc[] = [];
    let releaseRecords!: () => void;
    const recordsHeld = new Promise<void>((resolve) => (releaseRecords = resolve));
    const deliveries: WorkerDeps['deliveries'] = {
      recordAttempt: async (attempt) => {
        await recordsHeld;
        recorded.push(attempt);
      },
      delivery: () => Promise.resolve(null),
      due: {
        claimDue: () => Promise.resolve([]),
        done: () => Promise.resolve(),
        scheduleMany: () => Promise.resolve(),
        schedule: () => Promise.resolve(),
      },
    };
    const worker = new DeliveryWorker({
      endpoints: {
        cachedById: () => Promise.resolve(endpoint),
        signingSecrets: () => ['whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0c2VjcmV0'],
        disable: () => Promise.resolve(),
      },
      deliveries,
      logger: createLogger({ service: 'worker-test', level: 'error' }),
      schedule: [0, 1000],
      timeoutMs: 2000,
      concurrency: 2,
      send,
      lookup: undefined,
      connectRefusal: () => null,
    });
    let finished = false;
    const all = worker.attemptFirst([1, 2, 3, 4, 5, 6].map(delivery)).then(() => (finished = true));
    try {
      // Every request goes out while no attempt is recorded yet: slots do not wait for the database…
      for (let i = 0; i < 200 && target.received.length < 6; i++) await new Promise((r) => setTimeout(r, 10));
      expect(target.received.sort()).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4', 'msg_5', 'msg_6']);
      // …and no more than `concurrency` of them at once.
      expect(target.maxInFlight()).toBeLessThanOrEqual(2);
      expect(recorded).toHaveLength(0);
      expect(finished).toBe(false);

      releaseRecords();
      await all;
      expect(recorded.map((a) => [a.deliveryId, a.outcome]).sort()).toEqual(
        [1, 2, 3, 4, 5, 6].map((n) => [`msg_${n}`, 'succeeded']).sort(),
      );
    } finally {
      // A failed expectation above must not leave the worker and the receiver holding the test run open.
      releaseRecords();
      await worker.stop();
      await target.close();
    }
  });
});
