import { createLogger } from '@postbus/logger';
import { DeliveryWorker, type WorkerDeps } from './delivery-worker';
import type { SendOptions, SendResult } from './ports';
import type { AttemptDoc, DeliveryDoc, EndpointDoc } from './records';

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

describe('DeliveryWorker: what an answer leads to', () => {
  /** One first attempt against a receiver that answers `result`; returns what was recorded, scheduled and disabled. */
  async function attemptOnce(result: Partial<SendResult>, schedule = [0, 60_000], stored = delivery(1)) {
    const recorded: AttemptDoc[] = [];
    const scheduled: { id: string; at: Date; payload: Record<string, unknown> }[] = [];
    const disabled: string[] = [];
    const sent: SendOptions[] = [];
    const deliveries: WorkerDeps['deliveries'] = {
      recordAttempt: (attempt) => {
        recorded.push(attempt);
        return Promise.resolve();
      },
      delivery: () => Promise.resolve(null),
      due: {
        claimDue: () => Promise.resolve([]),
        done: () => Promise.resolve(),
        scheduleMany: () => Promise.resolve(),
        schedule: (id, at, payload) => {
          scheduled.push({ id, at, payload });
          return Promise.resolve();
        },
      },
    };
    const endpoints: WorkerDeps['endpoints'] = {
      cachedById: () => Promise.resolve(endpoint('https://receiver.example/hook')),
      signingSecrets: () => ['whsec_1'],
      disable: (id) => {
        disabled.push(id);
        return Promise.resolve();
      },
    };
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
    await worker.attemptFirst([stored]);
    await worker.stop();
    return { recorded, scheduled, disabled, sent, started };
  }

  it("a 2xx succeeds and schedules nothing; the POST is the delivery, signed with the endpoint's secrets", async () => {
    const { recorded, scheduled, sent } = await attemptOnce({ statusCode: 204 });
    expect(recorded.map((a) => [a._id, a.outcome, a.nextAttemptAt])).toEqual([['msg_1:1', 'succeeded', null]]);
    expect(scheduled).toEqual([]);
    expect(sent).toEqual([
      expect.objectContaining({
        url: 'https://receiver.example/hook',
        webhookId: 'msg_1',
        attempt: 1,
        secrets: ['whsec_1'],
        signatureHeaders: 'standard-webhooks',
      }),
    ]);
  });

  it("a delivery in the resend format is signed under Svix's header names, one in the postmark format under Standard Webhooks'", async () => {
    const resend = await attemptOnce({ statusCode: 200 }, undefined, { ...delivery(1), format: 'resend' });
    expect(resend.sent[0]).toMatchObject({ signatureHeaders: 'svix', payload: delivery(1).payload });
    const postmark = await attemptOnce({ statusCode: 200 }, undefined, { ...delivery(1), format: 'postmark' });
    expect(postmark.sent[0]).toMatchObject({ signatureHeaders: 'standard-webhooks' });
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
