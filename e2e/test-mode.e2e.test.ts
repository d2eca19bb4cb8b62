import { Webhook } from 'standardwebhooks';
import { basicAuth, call, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';
import { startReceiver } from './webhook-receiver';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The operations a test key may call: the sends, the message reads (an attachment's download is one) and who-am-I. */
const OPEN_TO_TEST_KEYS = new Set([
  'sendEmail',
  'sendContentEmail',
  'sendEmailBatch',
  'whoAmI',
  'listMessages',
  'getMessage',
  'getMessageContent',
  'getMessageAttachment',
]);

interface Timeline {
  event: string;
}
interface MessageView {
  id: string;
  status: string;
  test: boolean;
  timeline: Timeline[];
}

/** A test key through the real stack: its sends reach no one, their outcomes are simulated from the address, and it can do nothing else. */
describe('test mode: a pb_test_ key', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    system = await startSystem();
    receiver = await startReceiver();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client);
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await system?.stop();
  });

  const as = (auth: string) => (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, path, { auth, ...(json !== undefined ? { json } : {}) });

  it('sends nothing to the relay, simulates sent, bounced, complained and deferred-then-sent with test webhooks, stays out of stats and the default log, and is refused everywhere else', async () => {
    const full = as(client.auth);
    const p = `/v1/projects/${client.projectId}`;
    const hook = await full('POST', '/v1/webhooks', { url: receiver.url, events: ['*'], project_id: client.projectId });
    expect(hook.status).toBe(201);
    const today = new Date().toISOString().slice(0, 10);
    const statsOf = async () =>
      (await full('GET', `${p}/messages/stats?from=${today}&to=${today}`)).body.data[0].counts as Record<string, number>;
    const statsBefore = await statsOf();

    const created = await full('POST', '/v1/keys', { name: 'CI', scope: 'test' });
    expect(created.status).toBe(201);
    expect(created.body.scope).toBe('test');
    expect(created.body.api_key).toMatch(/^pb_test_/);
    const test = as(basicAuth(client.clientId, created.body.api_key as string));

    const single = await test('POST', `${p}/emails/welcome/send`, { user: { email: 'a@example.org' } });
    expect(single.status).toBe(200);
    const batch = await test('POST', `${p}/emails/batch`, {
      messages: ['b+bounce@example.org', 'c+complaint@example.org', 'd+defer@example.org'].map((email) => ({
        email_key: 'welcome',
        user: { email },
      })),
    });
    expect(batch.status).toBe(200);
    const [a, b, c, d] = [single.body.message_id as string, ...(batch.body.data as Array<{ message_id: string }>).map((r) => r.message_id)];

    const settled = async (id: string, status: string, last: string) =>
      waitFor(
        async () => {
          const res = await test('GET', `${p}/messages/${id}`);
          const view = res.body as MessageView;
          return res.status === 200 && view.status === status && view.timeline.at(-1)?.event === last ? view : undefined;
        },
        { timeoutMs: 20_000, what: `${id} ${status}` },
      );
    const views = {
      a: await settled(a, 'sent', 'sent'),
      b: await settled(b!, 'bounced', 'bounced'),
      c: await settled(c!, 'sent', 'complained'),
      d: await settled(d!, 'sent', 'sent'),
    };
    expect(Object.values(views).map((v) => v.test)).toEqual([true, true, true, true]);
    expect(views.d.timeline.map((e) => e.event)).toEqual(['queued', 'deferred', 'sent']);
    expect(views.c.timeline.map((e) => e.event)).toEqual(['queued', 'sent', 'complained']);
    // Rendered as any other: its content is there to read.
    const content = await test('GET', `${p}/messages/${a}/content`);
    expect(content.status).toBe(200);
    expect(content.body.subject).toEqual(expect.any(String));

    // Webhooks as for real mail, each signed and marked test.
    const expected: Record<string, string[]> = {
      [a]: ['message.queued', 'message.sent'],
      [b!]: ['message.queued', 'message.bounced'],
      [c!]: ['message.queued', 'message.sent', 'message.complained'],
      [d!]: ['message.queued', 'message.deferred', 'message.sent'],
    };
    const verifier = new Webhook(hook.body.secret as string);
    const bodies = await waitFor(
      () => {
        const all = receiver.received.map(
          (r) => verifier.verify(r.body, r.headers) as { type: string; data: { message_id: string; test: boolean; sequence: number } },
        );
        const complete = Object.entries(expected).every(
          ([id, types]) => all.filter((w) => w.data.message_id === id).length >= types.length,
        );
        return complete ? all : undefined;
      },
      { timeoutMs: 20_000, what: 'the webhooks of the four test messages' },
    );
    for (const [id, types] of Object.entries(expected)) {
      const mine = bodies.filter((w) => w.data.message_id === id).sort((x, y) => x.data.sequence - y.data.sequence);
      expect([id, [...new Set(mine.map((w) => w.type))]]).toEqual([id, types]);
      expect(mine.every((w) => w.data.test === true)).toBe(true);
    }

    // A real send for comparison: it reaches the relay, counts in stats, and registers its user.
    const real = await full('POST', `${p}/emails/welcome/send`, { user: { email: 'x@example.org' } });
    expect(real.status).toBe(200);
    await system.sink.client.waitForMessageId(`${real.body.message_id as string}@mail.e2e.example`);
    await waitFor(async () =>
      (await full('GET', `${p}/messages/${real.body.message_id as string}`)).body.status === 'sent' ? true : undefined,
    );
    // Only the real mail reached the SMTP sink.
    expect(await system.sink.client.count()).toBe(1);

    // Stats count the real message alone (rollups are flushed every second).
    const statsAfter = await waitFor(async () => {
      const counts = await statsOf();
      return counts['sent'] === (statsBefore['sent'] ?? 0) + 1 ? counts : undefined;
    });
    await new Promise((r) => setTimeout(r, 1_500));
    const settledStats = await statsOf();
    expect(settledStats).toEqual(statsAfter);
    expect(settledStats['queued']).toBe((statsBefore['queued'] ?? 0) + 1);
    expect(settledStats['bounced']).toBe(statsBefore['bounced'] ?? 0);
    expect(settledStats['deferred']).toBe(statsBefore['deferred'] ?? 0);

    // The default log leaves test messages out; test=true shows only them; a test key sees only them.
    const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((m) => m.id).sort();
    expect(ids(await full('GET', `${p}/messages`))).toEqual([real.body.message_id]);
    expect(ids(await full('GET', `${p}/messages?test=true`))).toEqual([a, b, c, d].sort());
    expect(ids(await test('GET', `${p}/messages`))).toEqual([a, b, c, d].sort());
    expect(ids(await test('GET', `${p}/messages?test=false`))).toEqual([a, b, c, d].sort());
    expect(ids(await full('GET', `${p}/messages?test=true&status=bounced`))).toEqual([b]);
    expect((await test('GET', `${p}/messages/${real.body.message_id as string}`)).status).toBe(404);
    expect((await test('GET', `${p}/messages/${real.body.message_id as string}/content`)).status).toBe(404);

    // Nothing else changed: no suppression for the simulated bounce and complaint, no user registered.
    for (const email of ['b+bounce@example.org', 'c+complaint@example.org'])
      expect((await full('GET', `${p}/suppressions?email=${encodeURIComponent(email)}`)).body.data).toEqual([]);
    await waitFor(async () => ((await full('GET', `${p}/users?email=x@example.org`)).status === 200 ? true : undefined));
    expect((await full('GET', `${p}/users?email=a@example.org`)).status).toBe(404);

    // Every other operation of the OpenAPI document is refused to the test key.
    const doc = (await call(system.gatewayUrl, 'GET', '/v1/openapi.json')).body as {
      paths: Record<string, Record<Method, { operationId: string }>>;
    };
    const someIds: Record<string, string> = { projectId: client.projectId, messageId: a };
    const answers: string[] = [];
    let refused = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (OPEN_TO_TEST_KEYS.has(op.operationId)) continue;
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => someIds[name] ?? 'x');
        const res = await test(method.toUpperCase(), url, method === 'get' || method === 'delete' ? undefined : {});
        if (res.status === 403) refused++;
        else answers.push(`${op.operationId} ${method.toUpperCase()} ${path}: ${res.status}`);
      }
    }
    expect(answers).toEqual([]);
    expect(refused).toBeGreaterThan(40);
    expect((await test('POST', '/v1/projects', { name: 'x' })).body.detail).toMatch(/test key/);
  }, 120_000);
});
