import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@postbus/logger';
import type { AttemptDoc, DeliveryDoc, DeliveryStore } from '../model/delivery.repository';
import type { EndpointDoc, EndpointStore } from '../model/endpoint.repository';
import { send, type SendOptions, type SendResult } from '../clients/webhook-sender';
import { DeliveryWorker } from './delivery-worker';

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

const endpoint = (url: string): EndpointDoc => ({
  _id: 'we_1',
  clientId: 'cl_1',
  projectId: null,
  url,
  events: ['*'],
  description: null,
  enabled: true,
  disabledReason: null,
  secrets: [],
  createdAt: new Date(),
  updatedAt: new Date(),
});

const delivery = (n: number): DeliveryDoc => ({
  _id: `msg_${n}`,
  endpointId: 'we_1',
  clientId: 'cl_1',
  eventId: `evt_${n}`,
  eventType: 'message.sent',
  payload: JSON.stringify({ type: 'message.sent', data: { n } }),
  createdAt: new Date(),
});

describe('DeliveryWorker', () => {
  it('frees a request slot once the answer is in, and finishes a delivery only once its attempt is recorded', async () => {
    const target = await receiver();
    // Recording is held until the test lets it go: a slow database.
    const recorded: AttemptDoc[] = [];
    let releaseRecords!: () => void;
    const recordsHeld = new Promise<void>((resolve) => (releaseRecords = resolve));
    const deliveries = {
      recordAttempt: async (attempt: AttemptDoc) => {
        await recordsHeld;
        recorded.push(attempt);
      },
      delivery: () => Promise.resolve(null),
      due: { done: () => Promise.resolve(), scheduleMany: () => Promise.resolve(), schedule: () => Promise.resolve() },
    } as unknown as DeliveryStore;
    const endpoints = {
      cachedById: () => Promise.resolve(endpoint(target.url)),
      signingSecrets: () => ['whsec_dGVzdHNlY3JldHRlc3RzZWNyZXR0ZXN0c2VjcmV0'],
    } as unknown as EndpointStore;
    const worker = new DeliveryWorker({
      endpoints,
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

describe('DeliveryWorker: what an answer leads to', () => {
  /** One first attempt against a receiver that answers `result`; returns what was recorded, scheduled and disabled. */
  async function attemptOnce(result: Partial<SendResult>, schedule = [0, 60_000]) {
    const recorded: AttemptDoc[] = [];
    const scheduled: { id: string; at: Date; payload: Record<string, unknown> }[] = [];
    const disabled: string[] = [];
    const sent: SendOptions[] = [];
    const deliveries = {
      recordAttempt: (attempt: AttemptDoc) => {
        recorded.push(attempt);
        return Promise.resolve();
      },
      delivery: () => Promise.resolve(null),
      due: {
        done: () => Promise.resolve(),
        scheduleMany: () => Promise.resolve(),
        schedule: (id: string, at: Date, payload: Record<string, unknown>) => {
          scheduled.push({ id, at, payload });
          return Promise.resolve();
        },
      },
    } as unknown as DeliveryStore;
    const endpoints = {
      cachedById: () => Promise.resolve(endpoint('https://receiver.example/hook')),
      signingSecrets: () => ['whsec_1'],
      disable: (id: string) => {
        disabled.push(id);
        return Promise.resolve();
      },
    } as unknown as EndpointStore;
    const worker = new DeliveryWorker({
      endpoints,
      deliveries,
      logger: createLogger({ service: 'worker-test', level: 'error' }),
      schedule,
      timeoutMs: 2000,
      concurrency: 2,
      send: (options) => {
        sent.push(options);
        return Promise.resolve({ statusCode: 200, latencyMs: 1, response: null, error: null, retryAfterSeconds: null, ...result });
      },
      lookup: undefined,
      connectRefusal: () => null,
    });
    const started = Date.now();
    await worker.attemptFirst([delivery(1)]);
    await worker.stop();
    return { recorded, scheduled, disabled, sent, started };
  }

  it("a 2xx succeeds and schedules nothing; the POST is the delivery, signed with the endpoint's secrets", async () => {
    const { recorded, scheduled, sent } = await attemptOnce({ statusCode: 204 });
    expect(recorded.map((a) => [a._id, a.outcome, a.nextAttemptAt])).toEqual([['msg_1:1', 'succeeded', null]]);
    expect(scheduled).toEqual([]);
    expect(sent).toEqual([
      expect.objectContaining({ url: 'https://receiver.example/hook', webhookId: 'msg_1', attempt: 1, secrets: ['whsec_1'] }),
    ]);
  });

  it('a failure with attempts left schedules the next one after its wait', async () => {
    const { recorded, scheduled, started } = await attemptOnce({ statusCode: 500 });
    expect(recorded[0]!.outcome).toBe('retrying');
    expect(scheduled).toEqual([{ id: 'msg_1', at: recorded[0]!.nextAttemptAt, payload: { attempt: 2, endpointId: 'we_1' } }]);
    const waited = scheduled[0]!.at.getTime() - started;
    expect(waited).toBeGreaterThanOrEqual(54_000 - 100); // 60 s, give or take the 10 % jitter
    expect(waited).toBeLessThanOrEqual(66_000 + 1000);
  });

  it('a receiver asking to slow down is waited for as long as it says', async () => {
    const { scheduled, started } = await attemptOnce({ statusCode: 429, retryAfterSeconds: 3600 });
    expect(scheduled[0]!.at.getTime() - started).toBeGreaterThanOrEqual(3_600_000 - 100);
  });

  it('410 Gone disables the endpoint and ends the delivery', async () => {
    const { recorded, scheduled, disabled } = await attemptOnce({ statusCode: 410 });
    expect(disabled).toEqual(['we_1']);
    expect(recorded[0]!.outcome).toBe('failed');
    expect(scheduled).toEqual([]);
  });

  it('the last attempt of the schedule fails for good', async () => {
    const { recorded, scheduled } = await attemptOnce({ statusCode: 500 }, [0]);
    expect(recorded[0]!.outcome).toBe('failed');
    expect(scheduled).toEqual([]);
  });
});
