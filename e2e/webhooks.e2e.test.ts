import { Webhook } from 'standardwebhooks';
import { call, freePort, sleep, waitFor } from '@postbus/testing';
import { withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';
import { startReceiver, type Received } from './webhook-receiver';

describe('webhooks through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient({ sendable: true }, (started) => ({ system, client } = started));

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, path, { auth: client.auth, ...(json !== undefined ? { json } : {}) });
  const trigger = async (email: string) => {
    const res = await api('POST', `/v1/projects/${client.projectId}/emails/welcome/send`, { user: { email } });
    expect(res.status).toBe(200);
    return res.body.message_id as string;
  };
  const eventsFor = (received: Received[], messageId: string) =>
    received.filter((r) => (JSON.parse(r.body) as { data: { message_id?: string } }).data.message_id === messageId);

  it('delivers message.queued and message.sent with Standard Webhooks signatures', async () => {
    const receiver = await startReceiver();
    try {
      const created = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['message.queued', 'message.sent'] });
      expect(created.status).toBe(201);
      expect(created.body.secret).toMatch(/^whsec_/);
      const id = await trigger('hook@example.org');
      const got = await waitFor(() => {
        const events = eventsFor(receiver.received, id);
        return events.length >= 2 ? events : undefined;
      });
      const types = got.map((r) => (JSON.parse(r.body) as { type: string }).type).sort();
      expect(types).toEqual(['message.queued', 'message.sent']);
      for (const r of got) {
        const verified = new Webhook(created.body.secret as string).verify(r.body, r.headers) as {
          type: string;
          data: { sequence: number };
        };
        expect(verified.type).toMatch(/^message\./);
        expect(() => new Webhook('whsec_' + Buffer.from('another secret of 24 by').toString('base64')).verify(r.body, r.headers)).toThrow();
      }
      const sent = JSON.parse(got.find((r) => r.body.includes('"message.sent"'))!.body) as { data: Record<string, unknown> };
      expect(sent.data).toMatchObject({ message_id: id, sequence: 2, email: 'hook@example.org', email_key: 'welcome' });

      const log = await api('GET', `/v1/webhooks/${created.body.id}/deliveries`);
      expect(log.status).toBe(200);
      expect(log.body.data.filter((d: { status: string }) => d.status === 'succeeded').length).toBeGreaterThanOrEqual(2);
      expect(log.body.data[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 200, outcome: 'succeeded' });
      await api('DELETE', `/v1/webhooks/${created.body.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('retries through a refused connection and 500s with the same webhook-id until the receiver is up', async () => {
    const port = await freePort();
    const created = await api('POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/hooks`, events: ['message.sent'] });
    const id = await trigger('retry@example.org');
    // The receiver comes up once an attempt has met the refused connection (read from the delivery log, not a guessed sleep).
    await waitFor(
      async () => {
        const res = await api('GET', `/v1/webhooks/${created.body.id}/deliveries`);
        const attempts = (res.body.data ?? []).flatMap((d: { attempts: Array<{ status_code: number | null }> }) => d.attempts);
        return attempts.some((a: { status_code: number | null }) => a.status_code === null);
      },
      { timeoutMs: 20_000, what: 'an attempt refused' },
    );
    let failuresLeft = 2;
    const receiver = await startReceiver(() => (failuresLeft-- > 0 ? 500 : 200), port);
    try {
      await waitFor(() => failuresLeft < 0 && eventsFor(receiver.received, id).length >= 3, {
        timeoutMs: 20_000,
        what: 'the delivery to get through',
      });
      const attempts = eventsFor(receiver.received, id);
      expect(new Set(attempts.map((r) => r.id)).size).toBe(1); // webhook-id is stable across retries
      const numbers = attempts.map((r) => r.attempt);
      expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
      expect(numbers[0]).toBeGreaterThan(1); // the first attempt(s) met a refused connection
      const log = await waitFor(async () => {
        const res = await api('GET', `/v1/webhooks/${created.body.id}/deliveries?status=succeeded`);
        return res.body.data.length === 1 ? res.body.data[0] : undefined;
      });
      const outcomes = (log.attempts as Array<{ status_code: number | null; error: string | null }>).map((a) => a.status_code ?? 'refused');
      expect(outcomes[0]).toBe('refused');
      expect(outcomes.slice(-3)).toEqual([500, 500, 200]);
      // Each retrying attempt says when the next is due, and the next one did not come earlier.
      const tried = log.attempts as Array<{ at: string; outcome: string; next_attempt_at: string | null }>;
      tried.forEach((attempt, i) => {
        if (i === tried.length - 1) return expect(attempt.next_attempt_at).toBeNull();
        expect(attempt.outcome).toBe('retrying');
        expect(Date.parse(attempt.next_attempt_at!)).toBeGreaterThan(Date.parse(attempt.at));
        expect(Date.parse(tried[i + 1]!.at)).toBeGreaterThanOrEqual(Date.parse(attempt.next_attempt_at!));
      });
      await api('DELETE', `/v1/webhooks/${created.body.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('marks a delivery failed after the last attempt, and a retry by hand sends it again', async () => {
    let up = false;
    const receiver = await startReceiver(() => (up ? 200 : 500));
    try {
      const created = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['message.sent'] });
      const id = await trigger('manual@example.org');
      const failed = await waitFor(
        async () => {
          const res = await api('GET', `/v1/webhooks/${created.body.id}/deliveries?status=failed`);
          return res.body.data.length === 1 ? res.body.data[0] : undefined;
        },
        { timeoutMs: 30_000, what: 'the delivery to fail after its last attempt' },
      );
      expect(failed.attempts).toHaveLength(8); // WEBHOOK_RETRY_SCHEDULE has 8 entries in the e2e system
      expect(failed.payload.data.message_id).toBe(id);
      up = true;
      const retry = await api('POST', `/v1/webhooks/${created.body.id}/deliveries/${failed.id}/retry`);
      expect(retry.status).toBe(202);
      const succeeded = await waitFor(async () => {
        const res = await api('GET', `/v1/webhooks/${created.body.id}/deliveries?status=succeeded`);
        return res.body.data.length === 1 ? res.body.data[0] : undefined;
      });
      expect(succeeded.attempts.at(-1)).toMatchObject({ attempt: 9, status_code: 200, outcome: 'succeeded' });
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
      await api('DELETE', `/v1/webhooks/${created.body.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('refuses endpoints on private or metadata addresses at save', async () => {
    for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data']) {
      const res = await api('POST', '/v1/webhooks', { url, events: ['*'] });
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(/10\.0\.0\.1|169\.254\.169\.254/);
    }
  });

  it('loses nothing when the dispatcher is killed, and two instances never send one attempt twice', async () => {
    let firstTries = new Set<string>();
    // Every delivery fails once, then succeeds: two attempts each, told apart by Postbus-Attempt.
    const receiver = await startReceiver((r) => {
      if (firstTries.has(r.id)) return 200;
      firstTries.add(r.id);
      return 503;
    });
    const second = await system.startInstance('webhook-dispatcher', 'webhook-dispatcher-2');
    try {
      const created = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['message.sent'] });
      expect(created.status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await trigger(`kill-${i}@example.org`));
      await waitFor(() => receiver.received.length >= 5, { timeoutMs: 20_000 });
      await system.services['webhook-dispatcher'].kill();
      const killedAt = Date.now();
      await sleep(300);
      await system.restart('webhook-dispatcher');
      // Redelivering the killed instance's events waits for its Kafka session to time out (15 s); an
      // attempt it had claimed waits for its lease (3 × WEBHOOK_TIMEOUT_MS + 5 s = 11 s): well within a minute.
      const delivered = await waitFor(
        () => {
          const ok = new Set(receiver.received.filter((r) => r.status === 200).map((r) => r.id));
          return ok.size >= ids.length ? ok : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, what: 'every delivery to succeed' },
      ).catch(async (error: unknown) => {
        // Times in ms after the SIGKILL: a next attempt long overdue is stuck (lost), one merely late is slowness.
        const since = (at: string | number) => `${new Date(at).getTime() - killedAt}ms`;
        const log = await api('GET', `/v1/webhooks/${created.body.id}/deliveries?limit=100`);
        const unfinished = (
          log.body.data as Array<{
            id: string;
            status: string;
            attempts: Array<{ attempt: number; at: string; status_code: number | null; error: string | null; outcome: string }>;
          }>
        )
          .filter((d) => d.status !== 'succeeded')
          .map(
            (d) =>
              `${d.id} ${d.status}: ${d.attempts.map((a) => `#${a.attempt} ${a.status_code ?? a.error} ${a.outcome} at ${since(a.at)}`).join(', ')}` +
              `; received: ${
                receiver.received
                  .filter((r) => r.id === d.id)
                  .map((r) => `#${r.attempt} ${r.status} at ${since(r.at)}`)
                  .join(', ') || 'nothing'
              }`,
          );
        console.log(
          `${receiver.received.length} requests (${receiver.received.map((r) => `${r.id.slice(4, 10)}#${r.attempt}@${since(r.at)}`).join(' ')})\n` +
            `${log.body.data.length} deliveries, unfinished:\n${unfinished.join('\n')}\nnow ${since(Date.now())}; ` +
            `dispatcher logs: .data/logs/${system.env['KAFKA_NAMESPACE']}-webhook-dispatcher*.log`,
        );
        throw error;
      });
      expect(delivered.size).toBe(ids.length);
      const pairs = receiver.received.map((r) => `${r.id}#${r.attempt}`);
      const repeated = pairs.length - new Set(pairs).size;
      const lastAt = Math.max(...receiver.received.map((r) => r.at));
      console.log(
        `30 deliveries, 2 dispatcher instances, one SIGKILLed: ${pairs.length} requests, ${repeated} repeated attempts, the last ${lastAt - killedAt} ms after the kill`,
      );
      // A repeat can only come from the killed instance's attempts in flight (sent again once their
      // lease ran out); the live instances claim each attempt exactly once.
      expect(repeated).toBeLessThanOrEqual(5);
      firstTries = new Set();
    } finally {
      await second.stop();
      await receiver.close();
    }
  }, 120_000);
});
