import { waitFor } from '@postbus/testing';
import { inboundFixture, mailToInbound } from './inbound-mail';
import { projectCall, withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';

const DOMAIN = 'mail.copies.example';

/**
 * A send's cc and bcc (issue 34) through the real stack: the cc named in the mail's Cc header, the
 * bcc in the SMTP envelope only, a suppressed copy dropped and named on the message, and a bounce
 * of a copy suppressing that address without bouncing the message.
 */
describe('cc and bcc of one send', () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient(
    {
      sendable: { domain: DOMAIN },
      start: [{ ERASURE_DELAY: 'PT3S', ERASURE_SWEEP_DELAY_MS: '1000' }, { inbound: true }],
      timeoutMs: 120_000,
    },
    (started) => ({ system, client } = started),
  );

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);
  const send = (body: Record<string, unknown>) => api('POST', '/emails/welcome/send', body);
  const sentMessage = (id: string) =>
    waitFor(
      async () => {
        const res = await api('GET', `/messages/${id}`);
        return res.status === 200 && res.body.status === 'sent' ? (res.body as Record<string, unknown>) : undefined;
      },
      { timeoutMs: 30_000, what: 'the message sent' },
    );

  it('sends one mail: the cc in its Cc header, the bcc in the envelope only, with the Reply-To and the custom header; a suppressed cc is dropped and the message says so', async () => {
    expect((await api('POST', '/suppressions', { email: 'blocked-cc@example.org', reason: 'manual' })).status).toBe(200);
    // The suppression travels under its own address's key: sent once the mailer has it.
    await waitFor(async () => ((await api('GET', '/suppressions?email=blocked-cc@example.org')).body.data.length > 0 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the manual suppression listed',
    });
    const res = await send({
      user: { email: 'buyer@example.org' },
      cc: ['Accounts@Example.org', 'blocked-cc@example.org'],
      bcc: ['archive@example.org'],
      reply_to: 'orders@mail.copies.example',
      headers: { 'X-Order-Id': 'ord_4711' },
    });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;

    const arrived = await system.sink.client.waitForMessageId(`${id}@${DOMAIN}`);
    const mail = await system.sink.client.get(arrived.ID);
    expect(mail.To.map((a) => a.Address)).toEqual(['buyer@example.org']);
    expect(mail.Cc.map((a) => a.Address)).toEqual(['accounts@example.org']);
    // The sink names as Bcc the envelope's recipients that no header names.
    expect(mail.Bcc.map((a) => a.Address)).toEqual(['archive@example.org']);
    expect(mail.ReplyTo.map((a) => a.Address)).toEqual(['orders@mail.copies.example']);
    const headers = await system.sink.client.headers(arrived.ID);
    expect(headers['X-Order-Id']).toEqual(['ord_4711']);
    expect(headers['Bcc']).toBeUndefined();
    const raw = await system.sink.client.raw(arrived.ID);
    expect(raw).not.toContain('archive@example.org');
    expect(raw).not.toContain('blocked-cc@example.org');
    // One SMTP transaction: one mail at the sink for the message.
    expect((await system.sink.client.search(`message-id:${id}@${DOMAIN}`)).total).toBe(1);

    const message = await sentMessage(id);
    expect(message).toMatchObject({
      email: 'buyer@example.org',
      cc: ['accounts@example.org', 'blocked-cc@example.org'],
      bcc: ['archive@example.org'],
      dropped_copies: [{ email: 'blocked-cc@example.org', kind: 'cc', reason: 'manual' }],
    });

    // The copies are not registered as users; the recipient is.
    await waitFor(async () => ((await api('GET', '/users?email=buyer@example.org')).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the recipient registered',
    });
    expect((await api('GET', '/users?email=accounts@example.org')).status).toBe(404);
    expect((await api('GET', '/users?email=archive@example.org')).status).toBe(404);
  }, 120_000);

  it('a DSN naming a cc address suppresses that address (hard_bounce); the message stays sent', async () => {
    const res = await send({ user: { email: 'keeps@example.org' }, cc: ['gone-cc@example.org'] });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;
    const arrived = await system.sink.client.waitForMessageId(`${id}@${DOMAIN}`);
    const returnPath = String((await system.sink.client.get(arrived.ID)).ReturnPath);
    await sentMessage(id);

    const dsn = Buffer.from(
      inboundFixture('postfix/failed-550-user-unknown.eml').toString('latin1').replaceAll('gone@dest.test', 'gone-cc@example.org'),
      'latin1',
    );
    await mailToInbound(system, returnPath, dsn);
    const listed = await waitFor(
      async () => {
        const data = (await api('GET', '/suppressions?email=gone-cc@example.org')).body.data as unknown[];
        return data.length > 0 ? data : undefined;
      },
      { timeoutMs: 30_000, what: 'the cc address suppressed' },
    );
    expect(listed).toEqual([expect.objectContaining({ email: 'gone-cc@example.org', reason: 'hard_bounce', message_id: id })]);
    // The message says what came back about its copy; its status and timeline stay the recipient's.
    const after = await waitFor(
      async () => {
        const res = await api('GET', `/messages/${id}`);
        return res.body.copy_reports ? res : undefined;
      },
      { timeoutMs: 30_000, what: "the copy's bounce on the message" },
    );
    expect(after.body).toMatchObject({
      status: 'sent',
      delivered_copies: [{ email: 'gone-cc@example.org', kind: 'cc' }],
      copy_reports: [{ email: 'gone-cc@example.org', kind: 'cc', event: 'bounced', reason: expect.stringContaining('5.1.1') }],
    });
    expect((after.body.timeline as Array<{ event: string }>).map((e) => e.event)).toEqual(['queued', 'sent']);
    expect((await api('GET', '/suppressions?email=keeps@example.org')).body.data).toEqual([]);
  }, 120_000);

  it("a complaint naming a bcc address suppresses that address (complaint); the message's timeline and recipient are untouched", async () => {
    const res = await send({ user: { email: 'reader-keeps@example.org' }, bcc: ['angry-bcc@example.org'] });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;
    const arrived = await system.sink.client.waitForMessageId(`${id}@${DOMAIN}`);
    const returnPath = String((await system.sink.client.get(arrived.ID)).ReturnPath);
    await sentMessage(id);

    const arf = Buffer.from(
      inboundFixture('complaints/arf-abuse-rfc822-headers.eml')
        .toString('latin1')
        .replaceAll('reader@mailbox.example', 'angry-bcc@example.org'),
      'latin1',
    );
    await mailToInbound(system, returnPath, arf);
    const listed = await waitFor(
      async () => {
        const data = (await api('GET', '/suppressions?email=angry-bcc@example.org')).body.data as unknown[];
        return data.length > 0 ? data : undefined;
      },
      { timeoutMs: 30_000, what: 'the bcc address suppressed' },
    );
    expect(listed).toEqual([expect.objectContaining({ email: 'angry-bcc@example.org', reason: 'complaint', message_id: id })]);
    const after = await waitFor(
      async () => {
        const res = await api('GET', `/messages/${id}`);
        return res.body.copy_reports ? res : undefined;
      },
      { timeoutMs: 30_000, what: "the copy's complaint on the message" },
    );
    expect(after.body.copy_reports).toEqual([
      expect.objectContaining({ email: 'angry-bcc@example.org', kind: 'bcc', event: 'complained' }),
    ]);
    expect((after.body.timeline as Array<{ event: string }>).map((e) => e.event)).toEqual(['queued', 'sent']);
    expect((await api('GET', '/suppressions?email=reader-keeps@example.org')).body.data).toEqual([]);
  }, 120_000);

  it("erasing a person copied on another person's message redacts their address there; the recipient's message stays", async () => {
    const res = await send({ user: { email: 'stays@example.org' }, cc: ['leaving-cc@example.org', 'other-cc@example.org'] });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;
    await system.sink.client.waitForMessageId(`${id}@${DOMAIN}`);
    await sentMessage(id);
    const erase = await api('POST', '/users/erase', { email: 'leaving-cc@example.org' });
    expect(erase.status).toBe(200);
    const redacted = await waitFor(
      async () => {
        const read = await api('GET', `/messages/${id}`);
        return read.status === 200 && (read.body.cc as string[])[0] === '(erased)' ? read.body : undefined;
      },
      { timeoutMs: 60_000, what: 'the copy redacted' },
    );
    expect(redacted).toMatchObject({ email: 'stays@example.org', status: 'sent', cc: ['(erased)', 'other-cc@example.org'] });
    expect(JSON.stringify(redacted)).not.toContain('leaving-cc@example.org');
  }, 120_000);

  it('answers too many or repeated copies with problems naming the field, and queues nothing', async () => {
    const user = { email: 'bad-copies@example.org' };
    const addresses = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.org`);
    const tooMany = await send({ user, cc: addresses(11, 'c'), bcc: addresses(10, 'b') });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.type).toBe('/problems/too-many-copies');
    expect(tooMany.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/bcc']);
    const overOne = await send({ user, cc: addresses(21, 'c') });
    expect(overOne.status).toBe(400);
    expect(overOne.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/cc');
    const repeated = await send({ user, cc: ['Bad-Copies@example.org'], bcc: ['x@example.org', 'X@example.org'] });
    expect(repeated.status).toBe(422);
    expect(repeated.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/cc/0', '/bcc/1']);
    const notAnAddress = await send({ user, bcc: ['not an address'] });
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/bcc/0');

    const batch = await api('POST', '/emails/batch', {
      messages: [{ email_key: 'welcome', user, cc: addresses(21, 'c') }],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data[0]).toMatchObject({ status: 'rejected', error: { status: 400 } });
    expect(batch.body.data[0].error.errors.map((e: { pointer: string }) => e.pointer)).toContain('/messages/0/cc');
    expect((await api('GET', '/messages?email=bad-copies@example.org')).body.data).toEqual([]);
  });
});
