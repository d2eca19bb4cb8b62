/** @postbus-system shared */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, waitFor } from '@postbus/testing';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

/**
 * The TypeScript SDK against the running system. Data-plane writes go with an `sdk`-scoped key, as
 * a client backend would hold; reads (messages, user profiles, payments) need a `full` key, so the
 * test reads back with the client's full key. Project setup needs `full` too: an sdk key cannot
 * create projects, so the client is created with a full key and given an sdk key through the API.
 */
// The SDK is an ES module: a CommonJS file (as this test is, to TypeScript) loads it with import().
const loadSdk = () => import('@postbus/sdk');
type SdkModule = Awaited<ReturnType<typeof loadSdk>>;
type Postbus = InstanceType<SdkModule['Postbus']>;
type UserProfile = Awaited<ReturnType<Postbus['users']['get']>>;
type ValidationError = InstanceType<SdkModule['ValidationError']>;

describe('TypeScript SDK (@postbus/sdk) against the running system', () => {
  let Sdk: SdkModule;
  let system: RunningSystem;
  let client: DemoClient;
  let emailKey: string;
  let templateId: string;
  let domain: string;
  let sdk: Postbus;
  let reader: Postbus;
  let proxy: FaultProxy;

  beforeAll(async () => {
    Sdk = await loadSdk();
    system = await sharedSystem();
    client = await createClientAndProject(system);
    ({ emailKey, templateId, domain } = await createSendableEmail(system, client));
    const made = await call(system.gatewayUrl, 'POST', '/v1/keys', { auth: client.auth, json: { name: 'sdk e2e', scope: 'sdk' } });
    if (made.status !== 201) throw new Error(`creating the sdk key failed: ${made.status} ${made.text}`);
    sdk = new Sdk.Postbus({ clientId: client.clientId, apiKey: made.body.api_key as string, baseUrl: system.gatewayUrl });
    reader = new Sdk.Postbus({ clientId: client.clientId, apiKey: client.apiKey, baseUrl: system.gatewayUrl });
    proxy = await startFaultProxy(system.gatewayUrl);
  });

  afterAll(async () => {
    await proxy?.close();
  });

  /** The profile once the asynchronous write has been applied (404 until the user exists). */
  const profileWhen = (user: { email: string } | { user_id: string }, applied: (profile: UserProfile) => boolean) =>
    waitFor(
      async () => {
        const profile = await reader.users.get(client.projectId, user).catch((error: unknown) => {
          if (error instanceof Sdk.NotFoundError) return undefined;
          throw error;
        });
        return profile && applied(profile) ? profile : undefined;
      },
      { what: 'the user profile to show the write' },
    );

  it('sends an email that reaches status sent, read back with messages.get', async () => {
    const sent = await sdk.emails.send(client.projectId, emailKey, { email: 'ada@example.com', name: 'Ada' }, { code: '1234' });
    expect(sent).toEqual({ status: 'accepted', request_id: expect.any(String), message_id: expect.any(String) });

    const message = await waitFor(
      async () => {
        const found = await reader.messages.get(client.projectId, sent.message_id).catch(() => undefined);
        return found?.status === 'sent' ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the message to be sent' },
    );
    expect(message).toMatchObject({
      id: sent.message_id,
      email: 'ada@example.com',
      email_key: emailKey,
      status: 'sent',
      source: 'api',
      template: { id: templateId, version: expect.any(Number) },
    });
  });

  it('sends an email with its own content (no template): it arrives as given, and reads back with source api, template null and its further to', async () => {
    const recipient = 'content-ts@example.com';
    const sent = await sdk.emails.sendContent(client.projectId, {
      from: `SDK Shop <shop@${domain}>`,
      to: [recipient, 'content-ts-copy@example.com'],
      subject: 'Your receipt from the TypeScript SDK',
      html: '<p>Thanks for order <b>4711</b></p>',
      text: 'Thanks for order 4711',
      tags: ['ts-content'],
      metadata: { order: '4711' },
      attachments: [{ filename: 'notes.txt', content: new Uint8Array([104, 105]) }],
    });
    expect(sent).toEqual({ status: 'accepted', request_id: expect.any(String), message_id: expect.any(String) });

    const message = await waitFor(
      async () => {
        const found = await reader.messages.get(client.projectId, sent.message_id).catch(() => undefined);
        return found?.status === 'sent' ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the content message to be sent' },
    );
    expect(message).toMatchObject({
      id: sent.message_id,
      email: recipient,
      email_key: null,
      source: 'api',
      template: null,
      subject: 'Your receipt from the TypeScript SDK',
      to: ['content-ts-copy@example.com'],
      tags: ['ts-content'],
      metadata: { order: '4711' },
      attachments: [{ filename: 'notes.txt', content_type: 'text/plain', size: 2 }],
    });

    const arrived = await waitFor(
      async () => {
        const { messages } = await system.sink.client.search(`to:${recipient}`);
        return messages.length > 0 ? messages : undefined;
      },
      { what: 'the content mail in the SMTP sink' },
    );
    const mail = await system.sink.client.get(arrived[0]!.ID);
    expect(mail.Subject).toBe('Your receipt from the TypeScript SDK');
    expect(mail.From).toMatchObject({ Name: 'SDK Shop', Address: `shop@${domain}` });
    expect(mail.HTML).toContain('Thanks for order <b>4711</b>');
    expect(mail.Text).toContain('Thanks for order 4711');

    // A From off the project's verified sender domain is refused, naming `from`.
    const refused = await sdk.emails
      .sendContent(client.projectId, { to: recipient, subject: 'x', text: 'x', from: 'someone@elsewhere.example' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Sdk.ValidationError);
    expect((refused as ValidationError).status).toBe(422);
  });

  it('sends attachments from a file and from bytes, listed on the message; a program is a ValidationError naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postbus-e2e-'));
    await writeFile(join(dir, 'invoice.pdf'), Buffer.from('%PDF-1.4 invoice'));
    const sent = await sdk.emails.send(
      client.projectId,
      emailKey,
      { email: 'files@example.com' },
      { code: '1' },
      {
        attachments: [
          await Sdk.attachmentFromFile(join(dir, 'invoice.pdf')),
          { filename: 'notes.txt', content: new Uint8Array([104, 105]) },
        ],
      },
    );
    const message = await waitFor(
      async () => {
        const found = await reader.messages.get(client.projectId, sent.message_id).catch(() => undefined);
        return found?.status === 'sent' ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the message to be sent' },
    );
    expect(message.attachments).toEqual([
      { filename: 'invoice.pdf', content_type: 'application/pdf', size: 16 },
      { filename: 'notes.txt', content_type: 'text/plain', size: 2 },
    ]);
    const refused = await sdk.emails
      .send(client.projectId, emailKey, { email: 'files@example.com' }, {}, { attachments: [{ filename: 'setup.exe', content: 'TVo=' }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Sdk.ValidationError);
    expect((refused as ValidationError).errors).toEqual([
      { pointer: '/attachments/0/filename', message: expect.stringContaining('setup.exe') },
    ]);
  });

  it('sends a batch of template and content sends with tags and metadata: each message answered, the good ones sent and tagged', async () => {
    const answer = await sdk.emails.sendBatch(client.projectId, [
      { email_key: emailKey, user: { email: 'batch-ts@example.com' }, tags: ['ts-batch'], metadata: { order: 'ts-1' } },
      { email_key: 'no-such-email', user: { email: 'batch-ts@example.com' } },
      { to: 'batch-ts-content@example.com', subject: 'Batch content', text: 'one', tags: ['ts-batch-content'] },
    ]);
    expect(answer.data.map((r) => [r.index, r.status])).toEqual([
      [0, 'accepted'],
      [1, 'rejected'],
      [2, 'accepted'],
    ]);
    const first = answer.data[0]!;
    if (first.status !== 'accepted') throw new Error('the first message was rejected');
    const message = await waitFor(
      async () => {
        const found = await reader.messages.get(client.projectId, first.message_id).catch(() => undefined);
        return found?.status === 'sent' ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the batch message to be sent' },
    );
    expect(message).toMatchObject({ tags: ['ts-batch'], metadata: { order: 'ts-1' } });
    const third = answer.data[2]!;
    if (third.status !== 'accepted') throw new Error('the content message was rejected');
    const content = await waitFor(
      async () => {
        const found = await reader.messages.get(client.projectId, third.message_id).catch(() => undefined);
        return found?.status === 'sent' ? found : undefined;
      },
      { timeoutMs: 20_000, what: 'the batch content message to be sent' },
    );
    expect(content).toMatchObject({
      email: 'batch-ts-content@example.com',
      email_key: null,
      source: 'api',
      template: null,
      tags: ['ts-batch-content'],
    });
  });

  it('creates a user, updates it by email and by user_id, and reads it back both ways', async () => {
    const user = { email: 'bob@example.com', user_id: 'bob-1' };
    await expect(sdk.users.create(client.projectId, { ...user, fields: { plan: 'free' } })).resolves.toMatchObject({ status: 'accepted' });
    await profileWhen({ email: user.email }, (p) => p.fields['plan'] === 'free');

    await sdk.users.updateByEmail(client.projectId, user.email, { plan: 'pro', country: 'DE' });
    const byEmail = await profileWhen({ email: user.email }, (p) => p.fields['plan'] === 'pro');
    expect(byEmail).toMatchObject({ email: user.email, user_id: user.user_id, country: 'DE' });

    await sdk.users.updateByUserId(client.projectId, user.user_id, { city: 'Berlin', name: 'Bob' });
    const byUserId = await profileWhen({ user_id: user.user_id }, (p) => p.fields['city'] === 'Berlin');
    expect(byUserId).toMatchObject({ email: user.email, name: 'Bob', fields: { plan: 'pro', city: 'Berlin' } });
  });

  it('records a payment, listed for the user', async () => {
    await sdk.users.create(client.projectId, { email: 'cleo@example.com' });
    await sdk.payments.record(client.projectId, { email: 'cleo@example.com', payment_id: 'pay-sdk-1', amount: 1999, currency: 'EUR' });
    const listed = await waitFor(
      async () => {
        const page = await reader.payments.list(client.projectId, { email: 'cleo@example.com' });
        return page.data.find((payment) => payment.payment_id === 'pay-sdk-1');
      },
      { what: 'the payment in the list' },
    );
    expect(listed).toMatchObject({ amount: 1999, currency: 'EUR', email: 'cleo@example.com' });
  });

  it('unsubscribes a user, then erases it with an erase_at in the future', async () => {
    await sdk.users.create(client.projectId, { email: 'dan@example.com', user_id: 'dan-1' });
    await profileWhen({ user_id: 'dan-1' }, () => true);

    await sdk.users.unsubscribe(client.projectId, { email: 'dan@example.com' }, 'asked by phone');
    const unsubscribed = await profileWhen({ email: 'dan@example.com' }, (p) => p.subscription.status === 'unsubscribed');
    expect(unsubscribed.subscription.reason).toBe('asked by phone');

    const erased = await sdk.users.erase(client.projectId, { user_id: 'dan-1' });
    expect(erased.status).toBe('accepted');
    expect(Date.parse(erased.erase_at)).toBeGreaterThan(Date.now());
  });

  it('surfaces an invalid email as a ValidationError pointing at /user/email', async () => {
    const error = await sdk.emails.send(client.projectId, emailKey, { email: 'not an address' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Sdk.ValidationError);
    expect((error as ValidationError).status).toBe(400);
    expect((error as ValidationError).errors.map((e) => e.pointer)).toContain('/user/email');
    expect((error as ValidationError).requestId).toEqual(expect.any(String));
  });

  it('surfaces a read with an sdk-scoped key as a PermissionError', async () => {
    await expect(sdk.messages.list(client.projectId)).rejects.toBeInstanceOf(Sdk.PermissionError);
  });

  it('suppresses an address (listed as manual, a send to it ends suppressed), then removes it (a send mails again)', async () => {
    // A "+" and an "@", which suppressions.remove puts in the path.
    const email = 'fay+suppressed@example.com';
    await expect(reader.suppressions.add(client.projectId, email)).resolves.toMatchObject({ status: 'accepted' });

    const listed = await waitFor(
      async () => {
        const page = await reader.suppressions.list(client.projectId, { reason: 'manual', limit: 100 });
        return page.data.find((suppression) => suppression.email === email);
      },
      { what: 'the manual suppression in the list' },
    );
    expect(listed).toEqual({
      email,
      reason: 'manual',
      created_at: expect.any(String),
      message_id: null,
      reasons: [{ reason: 'manual', created_at: listed.created_at, message_id: null }],
    });
    expect((await reader.suppressions.list(client.projectId, { email, reason: 'complaint' })).data).toEqual([]);

    const blocked = await sdk.emails.send(client.projectId, emailKey, { email });
    const ended = await waitFor(
      async () => {
        const message = await reader.messages.get(client.projectId, blocked.message_id).catch(() => undefined);
        return message && ['sent', 'suppressed', 'failed'].includes(message.status) ? message : undefined;
      },
      { timeoutMs: 20_000, what: 'the send to the suppressed address to end' },
    );
    expect(ended.status).toBe('suppressed');

    await expect(reader.suppressions.remove(client.projectId, email)).resolves.toMatchObject({ status: 'accepted' });
    await waitFor(async () => (await reader.suppressions.list(client.projectId, { email })).data.length === 0, {
      what: 'the suppression gone from the list',
    });
    await expect(reader.suppressions.remove(client.projectId, email)).rejects.toBeInstanceOf(Sdk.NotFoundError);

    const again = await sdk.emails.send(client.projectId, emailKey, { email });
    await waitFor(async () => (await reader.messages.get(client.projectId, again.message_id).catch(() => undefined))?.status === 'sent', {
      timeoutMs: 20_000,
      what: 'the send after the removal to be sent',
    });
  });

  it('surfaces the suppression list with an sdk-scoped key as a PermissionError', async () => {
    await expect(sdk.suppressions.list(client.projectId)).rejects.toBeInstanceOf(Sdk.PermissionError);
    await expect(sdk.suppressions.add(client.projectId, 'gil@example.com')).rejects.toBeInstanceOf(Sdk.PermissionError);
  });

  it('retries a send the gateway processed but answered 503 twice, and mails exactly once', async () => {
    const email = 'eve.retry@example.com';
    const throughProxy = new Sdk.Postbus({
      clientId: client.clientId,
      apiKey: client.apiKey,
      baseUrl: proxy.url,
      retryBaseDelayMs: 20,
    });
    proxy.failNext({ count: 2, status: 503, mode: 'after-forward' });

    const sent = await throughProxy.emails.send(client.projectId, emailKey, { email, name: 'Eve' }, { code: '42' });

    const sends = proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/emails/${emailKey}/send`));
    expect(sends.map((r) => [r.status, r.forwarded])).toEqual([
      [503, true],
      [503, true],
      [200, true],
    ]);
    expect(new Set(sends.map((r) => r.idempotencyKey)).size).toBe(1);
    await waitFor(async () => (await reader.messages.get(client.projectId, sent.message_id)).status === 'sent', {
      timeoutMs: 20_000,
      what: 'the retried message to be sent',
    });
    const arrived = await waitFor(
      async () => {
        const { messages } = await system.sink.client.search(`to:${email}`);
        return messages.length > 0 ? messages : undefined;
      },
      { what: 'the mail in the SMTP sink' },
    );
    expect(arrived).toHaveLength(1);
    const logged = await reader.messages.list(client.projectId, { email });
    expect(logged.data.map((m) => m.id)).toEqual([sent.message_id]);
  });
});
