/** @postbus-system shared */
import { Webhook } from 'standardwebhooks';
import { call, waitFor } from '@postbus/testing';
import { projectCall, withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';
import { startReceiver } from './webhook-receiver';

/** A send's own reply-to, headers, tags and metadata, through the real stack: the mail, the message log and a verified webhook. */
describe('what one send carries beyond its recipient and data', () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient({ sendable: true, shared: true }, (started) => ({ system, client } = started));

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);
  const send = (body: Record<string, unknown>) => api('POST', '/emails/welcome/send', body);

  it('sends the reply-to and the custom header, shows tags and metadata, finds the message by tag, and signs them into its webhooks', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await call(system.gatewayUrl, 'POST', '/v1/webhooks', {
        auth: client.auth,
        json: { url: receiver.url, events: ['message.sent'], project_id: client.projectId },
      });
      expect(hook.status).toBe(201);
      const sent = await send({
        user: { email: 'buyer@example.org' },
        reply_to: 'orders@mail.e2e.example',
        headers: { 'X-Order-Id': 'ord_4711' },
        tags: ['receipt', 'shop:eu'],
        metadata: { order_id: 'ord_4711', customer: 'c-17' },
      });
      expect(sent.status).toBe(200);
      const id = sent.body.message_id as string;
      const plain = await send({ user: { email: 'other@example.org' }, tags: ['newsletter-ish'] });
      expect(plain.status).toBe(200);

      const arrived = await system.sink.client.waitForMessageId(`${id}@mail.e2e.example`);
      const mail = await system.sink.client.get(arrived.ID);
      expect(mail.ReplyTo.map((a) => a.Address)).toEqual(['orders@mail.e2e.example']);
      const headers = await system.sink.client.headers(arrived.ID);
      expect(headers['X-Order-Id']).toEqual(['ord_4711']);

      const message = await waitFor(async () => {
        const res = await api('GET', `/messages/${id}`);
        return res.status === 200 && res.body.status === 'sent' ? res.body : undefined;
      });
      expect(message).toMatchObject({ tags: ['receipt', 'shop:eu'], metadata: { order_id: 'ord_4711', customer: 'c-17' } });

      const tagged = await waitFor(async () => {
        const res = await api('GET', '/messages?tag=shop:eu');
        return res.status === 200 && res.body.data.length > 0 ? res.body.data : undefined;
      });
      expect(tagged.map((m: { id: string }) => m.id)).toEqual([id]);
      expect((await api('GET', '/messages?tag=unused')).body.data).toEqual([]);

      const delivered = await waitFor(() => receiver.received.find((r) => r.body.includes(id)), { what: 'the message.sent webhook' });
      const body = new Webhook(hook.body.secret as string).verify(delivered.body, delivered.headers) as { data: Record<string, unknown> };
      expect(body.data).toMatchObject({
        message_id: id,
        tags: ['receipt', 'shop:eu'],
        metadata: { order_id: 'ord_4711', customer: 'c-17' },
      });
    } finally {
      await receiver.close();
    }
  });

  it('answers bad options with problems naming the field, and queues nothing', async () => {
    const user = { email: 'bad@example.org' };
    const reserved = await send({ user, headers: { From: 'ceo@bank.example', 'X-Fine': '1', 'list-unsubscribe': '<x>' } });
    expect(reserved.status).toBe(422);
    expect(reserved.body.type).toBe('/problems/reserved-header');
    expect(reserved.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/headers/From', '/headers/list-unsubscribe']);

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ headers: { 'X-Split': 'a\r\nBcc: victim@example.org' } }, '/headers/X-Split'],
      [{ headers: { 'Bad Name': 'x' } }, '/headers/Bad Name'],
      [{ headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) }, '/headers'],
      [{ headers: { 'X-Long': 'x'.repeat(999) } }, '/headers/X-Long'],
      [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, '/tags'],
      [{ tags: ['has space'] }, '/tags/0'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, `/metadata/${'k'.repeat(41)}`],
      [{ metadata: { order: 'v'.repeat(501) } }, '/metadata/order'],
      [{ reply_to: 'not an address' }, '/reply_to'],
    ];
    for (const [options, pointer] of cases) {
      const res = await send({ user, ...options });
      expect([res.status, options]).toEqual([400, options]);
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    const none = await api('GET', '/messages?email=bad@example.org');
    expect(none.body.data).toEqual([]);
  });

  // Its own waits (the 198 sent, within 60 s) add up to more than jest's default budget of 60 s.
  it('sends a 200-message batch with two bad messages: each answered in order, the 198 others delivered, the batch repeated by its Idempotency-Key', async () => {
    const messages: Array<Record<string, unknown>> = Array.from({ length: 200 }, (_, i) => ({
      email_key: 'welcome',
      user: { email: `batch-${i}@example.org` },
      tags: ['batch-run'],
    }));
    messages[17] = { email_key: 'welcome', user: { email: 'not an address' } };
    messages[150] = { email_key: 'no-such-email', user: { email: 'batch-150@example.org' } };
    const headers = { 'Idempotency-Key': 'batch-e2e-1' };
    const res = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/batch`, {
      auth: client.auth,
      json: { messages },
      headers,
    });
    expect(res.status).toBe(200);
    const data = res.body.data as Array<{
      index: number;
      status: string;
      message_id?: string;
      error?: { status: number; errors?: Array<{ pointer: string }> };
    }>;
    expect(data.map((r) => r.index)).toEqual(messages.map((_, i) => i));
    expect(data.filter((r) => r.status === 'rejected').map((r) => [r.index, r.error?.status])).toEqual([
      [17, 400],
      [150, 404],
    ]);
    expect(data[17]!.error!.errors!.map((e) => e.pointer)).toEqual(['/messages/17/user/email']);
    const accepted = data.filter((r) => r.status === 'accepted').map((r) => r.message_id!);
    expect(new Set(accepted).size).toBe(198);

    const sentCount = async () => {
      let count = 0;
      let cursor: string | null = null;
      do {
        const page = await api(
          'GET',
          `/messages?tag=batch-run&status=sent&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        count += (page.body.data as unknown[]).length;
        cursor = page.body.next_cursor as string | null;
      } while (cursor);
      return count;
    };
    await waitFor(async () => ((await sentCount()) === 198 ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 1_000,
      what: 'the 198 accepted messages to be sent',
    });
    for (const id of accepted.slice(0, 5)) await system.sink.client.waitForMessageId(`${id}@mail.e2e.example`);

    const again = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/batch`, {
      auth: client.auth,
      json: { messages },
      headers,
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(data);
  }, 120_000);

  it('refuses a batch of 501 messages, or of none, and one for a project the client does not have', async () => {
    const over = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/batch`, {
      auth: client.auth,
      json: { messages: Array.from({ length: 501 }, (_, i) => ({ email_key: 'welcome', user: { email: `x-${i}@example.org` } })) },
    });
    expect(over.status).toBe(400);
    expect(over.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/messages']);
    const empty = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/batch`, {
      auth: client.auth,
      json: { messages: [] },
    });
    expect(empty.status).toBe(400);
    const elsewhere = await call(system.gatewayUrl, 'POST', `/v1/projects/${'0'.repeat(24)}/emails/batch`, {
      auth: client.auth,
      json: { messages: [{ email_key: 'welcome', user: { email: 'x@example.org' } }] },
    });
    expect(elsewhere.status).toBe(404);
  });
});
