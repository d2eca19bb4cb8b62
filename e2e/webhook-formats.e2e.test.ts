/** @postbus-system shared */
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import type { Models } from 'postmark';
import { Resend, type WebhookEventPayload } from 'resend';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { basicAuth, call, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';
import { startReceiver, type Received } from './webhook-receiver';

const DOMAIN = 'mail.formats.example';
const TRACKING = 'links.formats.example';

/**
 * svix's own `Webhook.verify`, as a Resend receiver runs it. svix is an ES module, which jest's
 * CommonJS cannot load: it runs in a node of its own, given the secret, the body and the headers
 * exactly as received.
 */
function svixVerify(secret: string, body: string, headers: Record<string, string>): string {
  const script = `import { Webhook } from 'svix';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { secret, body, headers } = JSON.parse(input);
try {
  new Webhook(secret).verify(body, headers);
  process.stdout.write('verified');
} catch (error) {
  process.stdout.write('refused: ' + error.message);
}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: __dirname,
    input: JSON.stringify({ secret, body, headers }),
    encoding: 'utf8',
  });
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface Endpoint {
  id: string;
  secret: string;
  receiver: Receiver;
}

/** Postmark's records by their RecordType, as the postmark package types them. */
type PostmarkRecord =
  | Models.DeliveryWebhook
  | Models.BounceWebhook
  | Models.SpamComplaintWebhook
  | Models.OpenWebhook
  | Models.ClickWebhook
  | Models.SubscriptionChangeWebhook;

/**
 * Webhook endpoints in Resend's and Postmark's formats (issue 50 item 4), through the real stack:
 * the bodies as each service writes its own, read with its official package's types, and the
 * Resend ones verified by svix and by Resend's SDK; signatures, the delivery log and a retry by
 * hand work in every format.
 */
describe("webhooks in Resend's and Postmark's formats", () => {
  let system: RunningSystem;
  let client: DemoClient;
  // Filled by beforeAll, one per format.
  const endpoints = {} as Record<'standard' | 'resend' | 'postmark', Endpoint>;

  const api = (method: string, path: string, json?: unknown, auth = client.auth) =>
    call(system.gatewayUrl, method, path, { auth, ...(json !== undefined ? { json } : {}) });

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN, trackingDomain: TRACKING });
    for (const format of ['standard', 'resend', 'postmark'] as const) {
      const receiver = await startReceiver();
      const created = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['*'], project_id: client.projectId, format });
      if (created.status !== 201) throw new Error(`creating the ${format} webhook answered ${created.status}: ${created.text}`);
      endpoints[format] = { id: created.body.id as string, secret: created.body.secret as string, receiver };
    }
  }, 120_000);

  afterAll(async () => {
    for (const { id, receiver } of Object.values(endpoints)) {
      await api('DELETE', `/v1/webhooks/${id}`);
      await receiver.close();
    }
  });

  const resendOf = (r: Received) => JSON.parse(r.body) as { type: string; created_at: string; data: Record<string, unknown> };
  /** A Resend body as the resend package types it. */
  const resendEvent = <T extends WebhookEventPayload['type']>(r: Received | undefined, type: T) => {
    const event = JSON.parse(r!.body) as WebhookEventPayload;
    expect(event.type).toBe(type);
    return event as Extract<WebhookEventPayload, { type: T }>;
  };
  const postmarkOf = (r: Received) => JSON.parse(r.body) as PostmarkRecord;
  /** What a receiver got, once it has every one of `expected`, keyed by `keyOf`. */
  const receivedAll = (receiver: Receiver, keyOf: (r: Received) => string | undefined, expected: string[]) =>
    waitFor(
      () => {
        const byKey = new Map(receiver.received.map((r) => [keyOf(r), r]));
        return expected.every((key) => byKey.has(key)) ? byKey : undefined;
      },
      { timeoutMs: 30_000, what: `${expected.join(', ')}` },
    );

  it('shows the format, refuses an event a format would never send, and defaults to standard', async () => {
    const one = await api('GET', `/v1/webhooks/${endpoints.resend.id}`);
    expect(one.body).toMatchObject({ format: 'resend', events: ['*'] });
    expect(endpoints.resend.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const refused = await api('POST', '/v1/webhooks', {
      url: endpoints.postmark.receiver.url,
      events: ['message.sent', 'message.queued'],
      format: 'postmark',
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ type: expect.stringMatching(/webhook-event-not-in-format$/) });
    expect(refused.body.detail).toMatch(/postmark format has no counterpart for message\.queued/);

    const plain = await api('POST', '/v1/webhooks', { url: endpoints.standard.receiver.url, events: ['message.queued'], enabled: false });
    expect(plain.body.format).toBe('standard');
    // A PATCH that names no format keeps it; one that would leave an event without counterpart is refused.
    const renamed = await api('PATCH', `/v1/webhooks/${plain.body.id}`, { description: 'renamed' });
    expect(renamed.body.format).toBe('standard');
    expect((await api('PATCH', `/v1/webhooks/${plain.body.id}`, { format: 'postmark' })).status).toBe(422);
    const moved = await api('PATCH', `/v1/webhooks/${plain.body.id}`, { format: 'resend' });
    expect(moved.body).toMatchObject({ format: 'resend', events: ['message.queued'] });
    await api('DELETE', `/v1/webhooks/${plain.body.id}`);
  });

  it("delivers a sent, opened and clicked message in each format: Resend's verified by svix and by Resend's SDK, Postmark's read by the postmark package's types", async () => {
    const sent = await api('POST', `/v1/projects/${client.projectId}/emails/send`, {
      from: `Shop <shop@${DOMAIN}>`,
      to: 'ann@example.org',
      subject: 'Your order',
      html: '<p>Thanks</p><a href="https://example.com/order/4711">Track it</a>',
      tags: ['receipt'],
      metadata: { order: '4711' },
      track_opens: true,
      track_clicks: true,
    });
    expect(sent.status).toBe(200);
    const id = sent.body.message_id as string;

    // The recipient opens the mail and follows its link (the tracking domain points at the gateway).
    const arrived = await system.sink.client.waitForMessageId(`${id}@${DOMAIN}`);
    const html = (await system.sink.client.get(arrived.ID)).HTML;
    const pixel = new RegExp(`src="http://${TRACKING.replace(/\./g, '\\.')}(/t/o/[\\w.-]+)"`).exec(html)?.[1];
    const link = new RegExp(`href="http://${TRACKING.replace(/\./g, '\\.')}(/t/c/[\\w.-]+)"`).exec(html)?.[1];
    const gateway = new URL(system.gatewayUrl);
    const visit = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: gateway.hostname, port: gateway.port, path, headers: { host: TRACKING } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await visit(pixel!)).toBe(200);
    expect(await visit(link!)).toBe(302);

    // Resend: email.sent (accepted), email.delivered (the relay's 250), email.opened, email.clicked, under Svix's headers.
    const resend = await receivedAll(
      endpoints.resend.receiver,
      (r) => (resendOf(r).data['email_id'] === id ? resendOf(r).type : undefined),
      ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'],
    );
    const sdk = new Resend('re_not_used_for_verifying');
    for (const r of resend.values()) {
      if (resendOf(r).data['email_id'] !== id) continue;
      expect(r.headers['svix-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(r.headers['webhook-signature']).toBeUndefined();
      expect(svixVerify(endpoints.resend.secret, r.body, r.headers)).toBe('verified');
      const tampered = r.body.replace(id, id.slice(0, -1) + (id.endsWith('0') ? '1' : '0'));
      expect(svixVerify(endpoints.resend.secret, tampered, r.headers)).toMatch(/^refused: /);
      expect(svixVerify(`whsec_${Buffer.from('another secret of 24 by').toString('base64')}`, r.body, r.headers)).toMatch(/^refused: /);
      const headers = { id: r.headers['svix-id']!, timestamp: r.headers['svix-timestamp']!, signature: r.headers['svix-signature']! };
      const event: WebhookEventPayload = sdk.webhooks.verify({
        payload: r.body,
        headers,
        webhookSecret: endpoints.resend.secret,
      });
      expect(event.type).toBe(resendOf(r).type);
    }
    const delivered = resendEvent(resend.get('email.delivered'), 'email.delivered');
    expect(delivered.data).toEqual({
      email_id: id,
      created_at: expect.any(String),
      to: ['ann@example.org'],
      tags: { order: '4711' },
    });
    expect(Date.parse(delivered.created_at)).toBeGreaterThanOrEqual(Date.parse(delivered.data.created_at));
    const clicked = resendEvent(resend.get('email.clicked'), 'email.clicked');
    expect(clicked.data.click).toEqual({ link: 'https://example.com/order/4711', timestamp: clicked.created_at });

    // Postmark: Delivery, Open and Click records (queued has no counterpart), with Postbus's own signature headers.
    const postmark = await receivedAll(
      endpoints.postmark.receiver,
      (r) => {
        const record = postmarkOf(r);
        return 'MessageID' in record && record.MessageID === id ? record.RecordType : undefined;
      },
      ['Delivery', 'Open', 'Click'],
    );
    const delivery = postmarkOf(postmark.get('Delivery')!) as Models.DeliveryWebhook;
    expect(delivery).toEqual({
      RecordType: 'Delivery',
      MessageStream: 'outbound',
      MessageID: id,
      Recipient: 'ann@example.org',
      Tag: 'receipt',
      Metadata: { order: '4711' },
      DeliveredAt: expect.any(String),
      Details: expect.stringMatching(/^250/),
    });
    const open = postmarkOf(postmark.get('Open')!) as Models.OpenWebhook;
    expect(open).toMatchObject({ RecordType: 'Open', FirstOpen: true, Recipient: 'ann@example.org', Tag: 'receipt', MessageID: id });
    const click = postmarkOf(postmark.get('Click')!) as Models.ClickWebhook;
    expect(click).toMatchObject({ RecordType: 'Click', OriginalLink: 'https://example.com/order/4711', Metadata: { order: '4711' } });
    for (const r of postmark.values()) expect(new StandardWebhook(endpoints.postmark.secret).verify(r.body, r.headers)).toBeTruthy();
    expect(endpoints.postmark.receiver.received.map((r) => postmarkOf(r).RecordType)).not.toContain(undefined);

    // The standard endpoint got Postbus's own bodies, as before.
    const standard = await receivedAll(
      endpoints.standard.receiver,
      (r) => {
        const body = JSON.parse(r.body) as { type: string; data: { message_id?: string } };
        return body.data.message_id === id ? body.type : undefined;
      },
      ['message.queued', 'message.sent', 'message.opened', 'message.clicked'],
    );
    for (const r of standard.values()) expect(new StandardWebhook(endpoints.standard.secret).verify(r.body, r.headers)).toBeTruthy();

    // The delivery log shows the body each endpoint was sent.
    const log = await api('GET', `/v1/webhooks/${endpoints.postmark.id}/deliveries?event_type=message.sent`);
    expect(log.body.data.find((d: { payload: { MessageID?: string } }) => d.payload.MessageID === id)).toMatchObject({
      event_type: 'message.sent',
      status: 'succeeded',
      payload: JSON.parse(postmark.get('Delivery')!.body),
    });
  });

  it('a bounce and a complaint (simulated with a test key) are Resend’s email.bounced and email.complained, and Postmark’s Bounce and SpamComplaint', async () => {
    const key = await api('POST', '/v1/keys', { name: 'formats', scope: 'test' });
    expect(key.status).toBe(201);
    const test = basicAuth(client.clientId, key.body.api_key as string);
    const send = async (to: string) => {
      const res = await api('POST', `/v1/projects/${client.projectId}/emails/send`, { to, subject: 'Hi', text: 'Hi' }, test);
      expect(res.status).toBe(200);
      return res.body.message_id as string;
    };
    const [bounced, complained] = [await send('bea+bounce@example.org'), await send('cy+complaint@example.org')];

    const resend = await receivedAll(endpoints.resend.receiver, (r) => `${resendOf(r).type} ${String(resendOf(r).data['email_id'])}`, [
      `email.bounced ${bounced}`,
      `email.complained ${complained}`,
    ]);
    const bounce = resendEvent(resend.get(`email.bounced ${bounced}`), 'email.bounced');
    expect(bounce.data).toMatchObject({ email_id: bounced, to: ['bea+bounce@example.org'] });
    expect(bounce.data.bounce).toEqual({ message: expect.any(String), type: 'Permanent', subType: 'General' });
    for (const r of resend.values()) expect(svixVerify(endpoints.resend.secret, r.body, r.headers)).toBe('verified');

    const postmark = await receivedAll(
      endpoints.postmark.receiver,
      (r) => {
        const record = postmarkOf(r);
        return 'MessageID' in record ? `${record.RecordType} ${record.MessageID}` : undefined;
      },
      [`Bounce ${bounced}`, `SpamComplaint ${complained}`],
    );
    const hard = postmarkOf(postmark.get(`Bounce ${bounced}`)!) as Models.BounceWebhook;
    expect(hard).toMatchObject({
      Type: 'HardBounce',
      TypeCode: 1,
      Email: 'bea+bounce@example.org',
      Inactive: true,
      MessageStream: 'outbound',
    });
    const spam = postmarkOf(postmark.get(`SpamComplaint ${complained}`)!) as Models.SpamComplaintWebhook;
    expect(spam).toMatchObject({ Type: 'SpamComplaint', Email: 'cy+complaint@example.org', Inactive: true, CanActivate: false });
  });

  it("the suppression list's changes are Resend's suppression.added and .removed, and Postmark's SubscriptionChange", async () => {
    const email = 'dan@example.org';
    expect((await api('POST', `/v1/projects/${client.projectId}/suppressions`, { email, reason: 'manual' })).status).toBe(200);
    const byRecipient = (r: Received) => {
      const record = postmarkOf(r);
      return record.RecordType === 'SubscriptionChange' && record.Recipient === email ? String(record.SuppressSending) : undefined;
    };
    await receivedAll(endpoints.postmark.receiver, byRecipient, ['true']);
    expect((await api('DELETE', `/v1/projects/${client.projectId}/suppressions/${email}`)).status).toBe(200);
    const postmark = await receivedAll(endpoints.postmark.receiver, byRecipient, ['true', 'false']);
    expect(postmarkOf(postmark.get('true')!)).toMatchObject({
      RecordType: 'SubscriptionChange',
      SuppressSending: true,
      SuppressionReason: 'ManualSuppression',
      Origin: 'Customer',
      MessageID: null,
    });
    expect(postmarkOf(postmark.get('false')!)).toMatchObject({ SuppressSending: false, SuppressionReason: null, Origin: 'Customer' });

    const resend = await receivedAll(
      endpoints.resend.receiver,
      (r) => (resendOf(r).data['email'] === email ? resendOf(r).type : undefined),
      ['suppression.added', 'suppression.removed'],
    );
    const added = resendEvent(resend.get('suppression.added'), 'suppression.added');
    expect(added.data).toEqual({ email, origin: 'manual', source_id: null, created_at: expect.any(String) });
  });

  it('a resend-format delivery that failed every attempt is retried by hand with the same svix-id and body, and the test event is sent in each format', async () => {
    let up = false;
    const receiver = await startReceiver(() => (up ? 200 : 500));
    try {
      const created = await api('POST', '/v1/webhooks', {
        url: receiver.url,
        events: ['message.sent'],
        project_id: client.projectId,
        format: 'resend',
      });
      const sent = await api('POST', `/v1/projects/${client.projectId}/emails/send`, { to: 'eve@example.org', subject: 'Hi', text: 'Hi' });
      const id = sent.body.message_id as string;
      const failed = await waitFor(
        async () => {
          const res = await api('GET', `/v1/webhooks/${created.body.id}/deliveries?status=failed`);
          return res.body.data.length === 1 ? res.body.data[0] : undefined;
        },
        { timeoutMs: 40_000, what: 'the delivery to fail after its last attempt' },
      );
      expect(failed.payload).toMatchObject({ type: 'email.delivered', data: { email_id: id } });
      up = true;
      expect((await api('POST', `/v1/webhooks/${created.body.id}/deliveries/${failed.id}/retry`)).status).toBe(202);
      // Every attempt, the one by hand included, is the same delivery: the same svix-id and the same bytes.
      const ofMessage = () => receiver.received.filter((r) => resendOf(r).data['email_id'] === id);
      const last = await waitFor(() => ofMessage().find((r) => r.status === 200), { timeoutMs: 20_000, what: 'the retry by hand' });
      const attempts = ofMessage().map((r) => ({ id: r.headers['svix-id'], body: r.body, status: r.status }));
      expect(attempts.filter((a) => a.id !== failed.id || a.body !== attempts[0]!.body)).toEqual([]);
      expect(Number(last.headers['postbus-attempt'])).toBe(failed.attempts.length + 1);
      expect(svixVerify(created.body.secret as string, last.body, last.headers)).toBe('verified');
      await api('DELETE', `/v1/webhooks/${created.body.id}`);
    } finally {
      await receiver.close();
    }

    for (const format of ['resend', 'postmark'] as const) {
      const { id, receiver: formatted } = endpoints[format];
      const accepted = await api('POST', `/v1/webhooks/${id}/test`);
      expect(accepted.status).toBe(202);
      const got = await waitFor(() => formatted.received.find((r) => r.body.includes('"webhook.test"')), {
        what: `${format}'s test event`,
      });
      expect(JSON.parse(got.body)).toMatchObject(
        format === 'resend' ? { type: 'webhook.test', data: { webhook_id: id } } : { RecordType: 'Test', data: { webhook_id: id } },
      );
      if (format === 'resend') expect(svixVerify(endpoints.resend.secret, got.body, got.headers)).toBe('verified');
    }
  });
});
