/** @postbus-system shared */
import { connect as connectTcp } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { consumerGroupHasPassed } from '@postbus/bus';
import { ConsumerGroups, Topics, topicName } from '@postbus/contracts';
import { ReturnPathTokens } from '@postbus/crypto';
import { basicAuth, call, defaultKafkaBrokers, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';
import { inboundFixture, mailToInbound } from './inbound-mail';
import { projectCall, sendAndReceive } from './project-api';
import { startReceiver } from './webhook-receiver';

const DOMAIN = 'mail.feedback.example';

/**
 * Postbus hears back (issue 33): mail comes back to the inbound MX at the envelope sender of a
 * message (a signed token at pb-bounces.<sender domain>) and changes the message and the address:
 * a hard bounce turns the message bounced and suppresses the address, a complaint suppresses it
 * and goes out as message.complained, a mail to the List-Unsubscribe address unsubscribes.
 */
describe('feedback through the inbound MX', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const inProject = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN });
    receiver = await startReceiver();
    const hook = await call(system.gatewayUrl, 'POST', '/v1/webhooks', {
      auth: client.auth,
      json: { url: receiver.url, events: ['message.bounced', 'message.complained', 'suppression.created', 'suppression.deleted'] },
    });
    expect(hook.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
  });

  /** The suppression.* webhook bodies received about an address. */
  const suppressionHooks = (type: string, email: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> })
      .filter((b) => b.type === type && b.data['email'] === email);

  /** Sends a trigger and returns its message id and the mail's envelope sender and List-Unsubscribe mailto address. */
  async function sendTo(email: string) {
    const { id, arrived, mail } = await sendAndReceive(system, client, DOMAIN, { email, name: 'Feedback' });
    const headers = await system.sink.client.headers(arrived.ID);
    const mailto = /<mailto:([^?>]+)/.exec(headers['List-Unsubscribe']?.[0] ?? '')?.[1];
    return { id, returnPath: String(mail.ReturnPath), mailto: mailto! };
  }

  const message = (id: string, what: string, done: (m: Record<string, unknown>) => boolean) =>
    waitFor(
      async () => {
        const res = await inProject('GET', `/messages/${id}`);
        return res.status === 200 && done(res.body) ? res.body : undefined;
      },
      { timeoutMs: 30_000, what },
    );
  const timelineOf = (m: Record<string, unknown>) => m['timeline'] as Array<{ event: string; reason?: string }>;

  it('the sender domain’s verify checks the return-path domain’s MX and SPF, published here', async () => {
    const domains = await call(system.gatewayUrl, 'GET', '/v1/sender-domains', { auth: client.auth });
    const domain = (
      domains.body.data as Array<{ domain: string; verification: { records: Array<{ purpose: string; ok: boolean }> } }>
    ).find((d) => d.domain === DOMAIN);
    expect(domain?.verification.records.filter((r) => r.purpose.startsWith('return_path_'))).toEqual([
      expect.objectContaining({ purpose: 'return_path_mx', ok: true }),
      expect.objectContaining({ purpose: 'return_path_spf', ok: true }),
    ]);
  });

  it('a DSN to a message’s return path turns it bounced, suppresses the address (hard_bounce) and sends message.bounced', async () => {
    const first = await sendTo('gone@example.org');
    expect(first.returnPath).toMatch(/^b\.[0-9a-f]{32}\.[a-z2-7]{20}@pb-bounces\.mail\.feedback\.example$/);
    await message(first.id, 'the message sent', (m) => m['status'] === 'sent');

    await mailToInbound(system, first.returnPath, inboundFixture('postfix/failed-550-user-unknown.eml'));
    const bounced = await message(first.id, 'the message bounced', (m) => m['status'] === 'bounced');
    const entry = timelineOf(bounced).find((e) => e.event === 'bounced');
    expect(entry?.reason).toMatch(/^hard bounce \(failed 5\.1\.1\)/);

    const next = await inProject('POST', '/emails/welcome/send', { user: { email: 'gone@example.org' }, data: {} });
    expect(next.status).toBe(200);
    const suppressed = await message(next.body.message_id as string, 'the next message suppressed', (m) => m['status'] === 'suppressed');
    expect(timelineOf(suppressed).find((e) => e.event === 'suppressed')?.reason).toBe('hard_bounce');

    const hook = await waitFor(() => receiver.received.find((r) => JSON.parse(r.body).type === 'message.bounced'), {
      timeoutMs: 30_000,
      what: 'the message.bounced webhook',
    });
    expect(JSON.parse(hook.body).data).toMatchObject({ message_id: first.id, event: 'bounced' });
    const created = await waitFor(() => suppressionHooks('suppression.created', 'gone@example.org')[0], {
      timeoutMs: 30_000,
      what: 'the suppression.created webhook',
    });
    expect(created.data).toEqual({
      project_id: client.projectId,
      email: 'gone@example.org',
      reason: 'hard_bounce',
      created_at: expect.any(String),
      message_id: first.id,
    });
  }, 120_000);

  it('a forged token changes nothing: the MX takes the mail, no message moves', async () => {
    const sent = await sendTo('still-here@example.org');
    await message(sent.id, 'the message sent', (m) => m['status'] === 'sent');
    const forged = sent.returnPath.replace(/\.([a-z2-7]{20})@/, (_, mac: string) => `.${mac.startsWith('a') ? 'b' : 'a'}${mac.slice(1)}@`);
    await mailToInbound(system, forged, inboundFixture('postfix/failed-550-user-unknown.eml'));
    // A genuine report sent after it is read after it: once that one counts, the forged one has been read too.
    const witness = await sendTo('witness@example.org');
    await message(witness.id, 'the witness sent', (m) => m['status'] === 'sent');
    await mailToInbound(system, witness.returnPath, inboundFixture('exim/failed-550-user-unknown.eml'));
    await message(witness.id, 'the witness bounced', (m) => m['status'] === 'bounced');
    expect((await inProject('GET', `/messages/${sent.id}`)).body.status).toBe('sent');
  }, 120_000);

  it('an ARF complaint puts complained on the timeline, suppresses the address (complaint) and sends message.complained', async () => {
    const sent = await sendTo('angry@example.org');
    await message(sent.id, 'the message sent', (m) => m['status'] === 'sent');
    await mailToInbound(system, sent.returnPath, inboundFixture('complaints/arf-abuse-rfc822-headers.eml'));
    const complained = await message(sent.id, 'the complaint on the timeline', (m) => timelineOf(m).some((e) => e.event === 'complained'));
    expect(complained['status']).toBe('sent');
    const next = await inProject('POST', '/emails/welcome/send', { user: { email: 'angry@example.org' }, data: {} });
    const suppressed = await message(next.body.message_id as string, 'the next message suppressed', (m) => m['status'] === 'suppressed');
    expect(timelineOf(suppressed).find((e) => e.event === 'suppressed')?.reason).toBe('complaint');
    await waitFor(() => receiver.received.find((r) => JSON.parse(r.body).type === 'message.complained'), {
      timeoutMs: 30_000,
      what: 'the message.complained webhook',
    });
  }, 120_000);

  it('the suppression list shows why each address gets no mail; a bounce is lifted by the client, a complaint is not, and a manual one is added', async () => {
    const list = await waitFor(
      async () => {
        const res = await inProject('GET', '/suppressions?limit=100');
        const emails = (res.body.data as Array<{ email: string }>).map((s) => s.email);
        return emails.includes('gone@example.org') && emails.includes('angry@example.org') ? res.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the bounced and the complaining address listed' },
    );
    expect(list.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'gone@example.org', reason: 'hard_bounce', message_id: expect.stringMatching(/^msg_/) }),
        expect.objectContaining({ email: 'angry@example.org', reason: 'complaint' }),
      ]),
    );
    expect((await inProject('GET', '/suppressions?reason=complaint')).body.data.map((s: { email: string }) => s.email)).toEqual([
      'angry@example.org',
    ]);

    const refused = await inProject('DELETE', '/suppressions/angry@example.org');
    expect(refused.status).toBe(409);
    expect(refused.body.type).toMatch(/suppression-is-a-complaint/);
    expect((await inProject('DELETE', '/suppressions/nobody@example.org')).status).toBe(404);

    expect((await inProject('DELETE', '/suppressions/Gone@Example.org')).status).toBe(200);
    const deleted = await waitFor(() => suppressionHooks('suppression.deleted', 'gone@example.org')[0], {
      timeoutMs: 30_000,
      what: 'the suppression.deleted webhook',
    });
    expect(deleted.data).toMatchObject({ reason: 'hard_bounce', message_id: expect.stringMatching(/^msg_/) });
    const again = await inProject('POST', '/emails/welcome/send', { user: { email: 'gone@example.org' }, data: {} });
    await message(again.body.message_id as string, 'a send to the reactivated address', (m) => m['status'] === 'sent');

    expect((await inProject('POST', '/suppressions', { email: 'Blocked@Example.org', reason: 'manual' })).status).toBe(200);
    const manual = await inProject('POST', '/emails/welcome/send', { user: { email: 'blocked@example.org' }, data: {} });
    const suppressed = await message(
      manual.body.message_id as string,
      'a send to the suppressed address',
      (m) => m['status'] === 'suppressed',
    );
    expect(timelineOf(suppressed).find((e) => e.event === 'suppressed')?.reason).toBe('manual');
    expect((await inProject('GET', '/suppressions?email=blocked@example.org')).body.data).toEqual([
      expect.objectContaining({ email: 'blocked@example.org', reason: 'manual', message_id: null }),
    ]);
    await waitFor(() => suppressionHooks('suppression.created', 'blocked@example.org')[0], {
      timeoutMs: 30_000,
      what: 'the suppression.created webhook of the manual one',
    });
    // Each change once, however often its report or command came.
    expect(suppressionHooks('suppression.created', 'gone@example.org')).toHaveLength(1);
    expect(suppressionHooks('suppression.created', 'angry@example.org')).toHaveLength(1);
    expect((await inProject('POST', '/suppressions', { email: 'x@example.org', reason: 'complaint' })).status).toBe(400);
  }, 120_000);

  it('a mail to the List-Unsubscribe mailto address unsubscribes the recipient', async () => {
    const sent = await sendTo('leaving@example.org');
    expect(sent.mailto).toMatch(/^u\.[0-9a-f]{32}\.[a-z2-7]{20}@pb-bounces\.mail\.feedback\.example$/);
    const raw = Buffer.from(
      `From: leaving@example.org\r\nTo: ${sent.mailto}\r\nSubject: unsubscribe\r\nMessage-ID: <u1@example.org>\r\nDate: ${new Date().toUTCString()}\r\n\r\nunsubscribe\r\n`,
    );
    await mailToInbound(system, sent.mailto, raw);
    await waitFor(
      async () => {
        const user = await inProject('GET', '/users?email=leaving@example.org');
        return user.status === 200 && user.body.subscription?.status === 'unsubscribed' ? user.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the recipient unsubscribed' },
    );
  }, 120_000);

  it('lifting an unsubscribe (the client asserts consent) subscribes the user again, and the next send goes out', async () => {
    const listed = await waitFor(
      async () => (await inProject('GET', '/suppressions?email=leaving@example.org')).body.data[0] as { reason: string } | undefined,
      { timeoutMs: 30_000, what: 'the unsubscribe in the suppression list' },
    );
    expect(listed.reason).toBe('unsubscribed');
    expect((await inProject('DELETE', '/suppressions/leaving@example.org')).status).toBe(200);
    await waitFor(
      async () => {
        const user = await inProject('GET', '/users?email=leaving@example.org');
        return user.status === 200 && user.body.subscription?.status === 'subscribed' ? user.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the user subscribed again' },
    );
    // The users service and the mailer each take the lift from their own topic: the list empties on its own time.
    await waitFor(async () => (await inProject('GET', '/suppressions?email=leaving@example.org')).body.data.length === 0, {
      timeoutMs: 30_000,
      what: 'the unsubscribe gone from the suppression list',
    });
    const again = await inProject('POST', '/emails/welcome/send', { user: { email: 'leaving@example.org' }, data: {} });
    await message(again.body.message_id as string, 'a send to the resubscribed address', (m) => m['status'] === 'sent');
    const deleted = await waitFor(() => suppressionHooks('suppression.deleted', 'leaving@example.org')[0], {
      timeoutMs: 30_000,
      what: 'the suppression.deleted webhook of the unsubscribe',
    });
    expect(deleted.data).toMatchObject({ reason: 'unsubscribed', message_id: null });
  }, 120_000);

  it('another client adding, verifying and deleting the same sender domain leaves this client’s bounces flowing', async () => {
    const other = await createClientAndProject(system);
    const asOther = (method: string, path: string) =>
      call(system.gatewayUrl, method, path, {
        auth: other.auth,
        ...(method === 'POST' && path === '/v1/sender-domains' ? { json: { domain: DOMAIN } } : {}),
      });
    const added = await asOther('POST', '/v1/sender-domains');
    expect(added.status).toBe(201);
    // Its records are not published: the other client cannot prove the domain, and its check fails.
    expect((await asOther('POST', `/v1/sender-domains/${added.body.id as string}/verify`)).body.status).not.toBe('verified');
    expect((await asOther('DELETE', `/v1/sender-domains/${added.body.id as string}`)).status).toBeLessThan(300);
    // The MX has read every catalog change published until now, the other client's deletion too.
    const published = new Date();
    const admin = new Kafka({ brokers: defaultKafkaBrokers().split(','), clientId: 'feedback-test', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const ns = system.env['KAFKA_NAMESPACE'];
      await waitFor(
        () => consumerGroupHasPassed(admin, topicName(ConsumerGroups.inboundCatalog, ns), [topicName(Topics.Catalog, ns)], published),
        { timeoutMs: 30_000, what: 'the inbound MX past the other client’s deletion' },
      );
    } finally {
      await admin.disconnect();
    }
    const sent = await sendTo('bounces-still@example.org');
    await message(sent.id, 'the message sent', (m) => m['status'] === 'sent');
    await mailToInbound(system, sent.returnPath, inboundFixture('postfix/failed-550-user-unknown.eml'), { refusal: 'fails' });
    await message(sent.id, 'the message bounced', (m) => m['status'] === 'bounced');
  }, 120_000);

  /** How long a fresh connection to the MX waits for its greeting and the answer to its EHLO. */
  const ehloMs = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const socket = connectTcp(port, '127.0.0.1');
      let heard = '';
      let greeted = false;
      socket.setEncoding('utf8');
      socket.on('error', reject);
      socket.on('data', (chunk: string) => {
        heard += chunk;
        if (!greeted && /^220 /m.test(heard)) {
          greeted = true;
          socket.write('EHLO fresh.example\r\n');
        } else if (greeted && /^250 /m.test(heard)) {
          resolve(performance.now() - started);
          socket.end('QUIT\r\n');
        }
      });
    });

  it('notices of 64,000 blank lines to a valid return path hold up neither a fresh connection’s EHLO nor the next bounce (issue 45 item 1)', async () => {
    const sent = await sendTo('after-the-flood@example.org');
    await message(sent.id, 'the message sent', (m) => m['status'] === 'sent');
    // The shape that took 159.5 s to read at 256 KiB when the parser's expressions were quadratic, on the MX's own loop.
    const blankNotice = Buffer.from(
      [
        'From: MAILER-DAEMON@remote.example',
        `To: ${sent.returnPath}`,
        'Subject: Undelivered Mail Returned to Sender',
        'Content-Type: text/plain',
        '',
        'This is the mail system at host remote.example.',
        '\r\n'.repeat(64_000),
        'end',
        '',
      ].join('\r\n'),
    );
    const notices = Promise.all(Array.from({ length: 3 }, () => mailToInbound(system, sent.returnPath, blankNotice, { refusal: 'fails' })));
    const ehlos: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ehlos.push(await ehloMs(system.inbound!.smtpPort));
    }
    await notices;
    console.info(
      `a fresh connection's EHLO while three notices of 64,000 blank lines were taken: ${ehlos.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    expect(Math.max(...ehlos)).toBeLessThan(2_000);
    await mailToInbound(system, sent.returnPath, inboundFixture('postfix/failed-550-user-unknown.eml'), { refusal: 'fails' });
    await message(sent.id, 'the message bounced after the notices', (m) => m['status'] === 'bounced');
  }, 120_000);

  /** The address's suppression reasons, as the client reads them. */
  const reasonsOf = async (email: string) =>
    ((await inProject('GET', `/suppressions?email=${email}`)).body.data as Array<{ reason: string }>).map((s) => s.reason);

  it('a complaint that names a message by its Message-ID alone changes nothing: every recipient sees that id', async () => {
    const sent = await sendTo('named-by-id@example.org');
    await message(sent.id, 'the message sent', (m) => m['status'] === 'sent');
    // A feedback report as anyone who saw the mail could write it: its Message-ID, no token.
    const forged = Buffer.from(
      inboundFixture('complaints/arf-abuse-redacted-message.eml')
        .toString('latin1')
        .replace(/<msg_[0-9a-f]{32}@sender\.test>/, `<${sent.id}@${DOMAIN}>`),
      'latin1',
    );
    await mailToInbound(system, `fbl@pb-bounces.${DOMAIN}`, forged);
    // A genuine delay notice about the same message, read after it: once it shows, the complaint has been read too.
    await mailToInbound(system, sent.returnPath, inboundFixture('exim/delayed-451.eml'));
    const after = await message(sent.id, 'the delay notice on the timeline', (m) => timelineOf(m).some((e) => e.event === 'soft_bounced'));
    expect(timelineOf(after).map((e) => e.event)).toEqual(['queued', 'sent', 'soft_bounced']);
    expect(await reasonsOf('named-by-id@example.org')).toEqual([]);
  }, 120_000);

  it('a complaint about a test message, or its cc, and an unsubscribe from it are on its timeline and suppress no one', async () => {
    const key = await call(system.gatewayUrl, 'POST', '/v1/keys', { auth: client.auth, json: { name: 'feedback test', scope: 'test' } });
    expect(key.status).toBe(201);
    const asTest = basicAuth(client.clientId, key.body.api_key as string);
    const sent = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/welcome/send`, {
      auth: asTest,
      json: { user: { email: 'test-to@example.org' }, cc: ['test-cc@example.org'], data: {} },
    });
    expect(sent.status).toBe(200);
    const id = sent.body.message_id as string;
    const testMessage = (what: string, done: (m: Record<string, unknown>) => boolean) =>
      waitFor(
        async () => {
          const res = await call(system.gatewayUrl, 'GET', `/v1/projects/${client.projectId}/messages/${id}`, { auth: asTest });
          return res.status === 200 && done(res.body) ? (res.body as Record<string, unknown>) : undefined;
        },
        { timeoutMs: 30_000, what },
      );
    await testMessage('the test message simulated as sent', (m) => m['status'] === 'sent');
    // A test message goes nowhere; its return paths are what the mailer signed for it.
    const tokens = new ReturnPathTokens(system.env['TRACKING_SECRET']!);
    const at = (purpose: 'bounce' | 'unsubscribe') => `${tokens.localPart({ purpose, messageId: id })}@pb-bounces.${DOMAIN}`;
    const arf = (recipient: string) =>
      Buffer.from(
        inboundFixture('complaints/arf-abuse-rfc822-headers.eml').toString('latin1').replaceAll('reader@mailbox.example', recipient),
        'latin1',
      );
    await mailToInbound(system, at('bounce'), arf('test-cc@example.org'));
    await mailToInbound(system, at('bounce'), arf('test-to@example.org'));
    await mailToInbound(
      system,
      at('unsubscribe'),
      Buffer.from(`From: test-to@example.org\r\nTo: ${at('unsubscribe')}\r\nSubject: unsubscribe\r\n\r\nunsubscribe\r\n`),
    );
    const reported = await testMessage('the complaints and the unsubscribe on the test message', (m) => {
      const events = timelineOf(m).map((e) => e.event);
      return events.includes('complained') && events.includes('unsubscribed') && Array.isArray(m['copy_reports']);
    });
    expect(reported['copy_reports']).toEqual([expect.objectContaining({ email: 'test-cc@example.org', event: 'complained' })]);
    expect(await reasonsOf('test-cc@example.org')).toEqual([]);
    expect(await reasonsOf('test-to@example.org')).toEqual([]);
  }, 120_000);
});
