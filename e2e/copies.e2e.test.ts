import { ReturnPathTokens } from '@postbus/crypto';
import { waitFor } from '@postbus/testing';
import { inboundFixture, mailToInbound } from './inbound-mail';
import { mailsAtSink, projectCall, withSystemAndClient } from './project-api';
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
  /** Whom a mail's envelope sender names: the message's recipient, or a copy by its position. */
  const addresseeOf = (returnPath: string) => {
    const claim = new ReturnPathTokens(system.env['TRACKING_SECRET']!).verify(returnPath.slice(0, returnPath.indexOf('@')));
    return claim?.copy !== undefined ? `copy ${claim.copy}` : claim ? 'recipient' : 'unsigned';
  };
  const mailsOf = (id: string, count: number) => mailsAtSink(system, id, DOMAIN, count);
  /** A feedback-loop complaint that names `address` as the one who complained. */
  const complaintNaming = (address: string) =>
    Buffer.from(
      inboundFixture('complaints/arf-abuse-rfc822-headers.eml').toString('latin1').replaceAll('reader@mailbox.example', address),
      'latin1',
    );
  /** The message, once something came back about one of its copies. */
  const withCopyReports = (id: string, what: string) =>
    waitFor(
      async () => {
        const read = await api('GET', `/messages/${id}`);
        return read.body.copy_reports ? (read.body as Record<string, unknown>) : undefined;
      },
      { timeoutMs: 30_000, what },
    );
  /** The mail of one addressee of a message ('recipient', 'copy 1', …). */
  const mailTo = async (id: string, count: number, addressee: string) =>
    (await mailsOf(id, count)).find((m) => addresseeOf(String(m.mail.ReturnPath)) === addressee)!;
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

    // Each copy is its own delivery: a mail to the recipient and one to each copy sent, each in its
    // own SMTP transaction with its own return path, named by the copy's position (cc, then bcc).
    const arrived = await mailsOf(id, 3);
    const byAddressee = new Map(arrived.map((m) => [addresseeOf(String(m.mail.ReturnPath)), m]));
    expect([...byAddressee.keys()].sort()).toEqual(['copy 1', 'copy 3', 'recipient']);
    for (const { mail, headers, raw } of arrived) {
      expect(mail.To.map((a) => a.Address)).toEqual(['buyer@example.org']);
      expect(mail.Cc.map((a) => a.Address)).toEqual(['accounts@example.org']);
      expect(mail.ReplyTo.map((a) => a.Address)).toEqual(['orders@mail.copies.example']);
      expect(headers['X-Order-Id']).toEqual(['ord_4711']);
      expect(headers['Bcc']).toBeUndefined();
      expect(raw).not.toContain('archive@example.org');
      expect(raw).not.toContain('blocked-cc@example.org');
    }
    // The sink names as Bcc the envelope's recipients that no header names: the bcc's own mail's.
    expect(byAddressee.get('recipient')!.mail.Bcc).toEqual([]);
    expect(byAddressee.get('copy 1')!.mail.Bcc).toEqual([]);
    expect(byAddressee.get('copy 3')!.mail.Bcc.map((a) => a.Address)).toEqual(['archive@example.org']);

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
    // Reported to the copy's own return path, as its mail system does.
    const returnPath = String((await mailTo(id, 2, 'copy 1')).mail.ReturnPath);
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
    const after = await withCopyReports(id, "the copy's bounce on the message");
    expect(after).toMatchObject({
      status: 'sent',
      delivered_copies: [{ email: 'gone-cc@example.org', kind: 'cc' }],
      copy_reports: [{ email: 'gone-cc@example.org', kind: 'cc', event: 'bounced', reason: expect.stringContaining('5.1.1') }],
    });
    expect((after['timeline'] as Array<{ event: string }>).map((e) => e.event)).toEqual(['queued', 'sent']);
    expect((await api('GET', '/suppressions?email=keeps@example.org')).body.data).toEqual([]);
  }, 120_000);

  it("a complaint naming a bcc address suppresses that address (complaint); the message's timeline and recipient are untouched", async () => {
    const res = await send({ user: { email: 'reader-keeps@example.org' }, bcc: ['angry-bcc@example.org'] });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;
    // Reported to the copy's own return path, as its mail system does.
    const returnPath = String((await mailTo(id, 2, 'copy 1')).mail.ReturnPath);
    await sentMessage(id);

    const arf = complaintNaming('angry-bcc@example.org');
    await mailToInbound(system, returnPath, arf);
    const listed = await waitFor(
      async () => {
        const data = (await api('GET', '/suppressions?email=angry-bcc@example.org')).body.data as unknown[];
        return data.length > 0 ? data : undefined;
      },
      { timeoutMs: 30_000, what: 'the bcc address suppressed' },
    );
    expect(listed).toEqual([expect.objectContaining({ email: 'angry-bcc@example.org', reason: 'complaint', message_id: id })]);
    const after = await withCopyReports(id, "the copy's complaint on the message");
    expect(after['copy_reports']).toEqual([expect.objectContaining({ email: 'angry-bcc@example.org', kind: 'bcc', event: 'complained' })]);
    expect((after['timeline'] as Array<{ event: string }>).map((e) => e.event)).toEqual(['queued', 'sent']);
    expect((await api('GET', '/suppressions?email=reader-keeps@example.org')).body.data).toEqual([]);
  }, 120_000);

  it("a complaint to a copy's own return path is that copy's, even when it names the recipient", async () => {
    const res = await send({ user: { email: 'named-by-cc@example.org' }, cc: ['forging-cc@example.org'] });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;
    const returnPath = String((await mailTo(id, 2, 'copy 1')).mail.ReturnPath);
    await sentMessage(id);
    // The cc saw the recipient's address in the To header, and names it as the one who complained.
    const arf = complaintNaming('named-by-cc@example.org');
    await mailToInbound(system, returnPath, arf);
    const after = await withCopyReports(id, "the copy's complaint on the message");
    expect(after['copy_reports']).toEqual([expect.objectContaining({ email: 'forging-cc@example.org', kind: 'cc', event: 'complained' })]);
    expect((await api('GET', '/suppressions?email=forging-cc@example.org')).body.data).toEqual([
      expect.objectContaining({ reason: 'complaint', message_id: id }),
    ]);
    expect((await api('GET', '/suppressions?email=named-by-cc@example.org')).body.data).toEqual([]);
    expect((after['timeline'] as Array<{ event: string }>).map((e) => e.event)).toEqual(['queued', 'sent']);
  }, 120_000);

  it("a cc's one-click unsubscribe unsubscribes that address alone: the To person stays subscribed and gets the next mail", async () => {
    const res = await send({ user: { email: 'stays-subscribed@example.org' }, cc: ['leaves-as-cc@example.org'] });
    expect(res.status).toBe(200);
    const id = res.body.message_id as string;
    const { headers } = await mailTo(id, 2, 'copy 1');
    const unsubscribeUrl = /<(http[^>]+)>/.exec(headers['List-Unsubscribe']![0]!)![1]!;
    const oneClick = await fetch(unsubscribeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    const after = await withCopyReports(id, "the copy's unsubscribe on the message");
    expect(after['copy_reports']).toEqual([
      expect.objectContaining({ email: 'leaves-as-cc@example.org', kind: 'cc', event: 'unsubscribed' }),
    ]);
    expect((after['timeline'] as Array<{ event: string }>).map((e) => e.event)).toEqual(['queued', 'sent']);
    expect((await api('GET', '/suppressions?email=leaves-as-cc@example.org')).body.data).toEqual([
      expect.objectContaining({ reason: 'unsubscribed' }),
    ]);
    expect((await api('GET', '/suppressions?email=stays-subscribed@example.org')).body.data).toEqual([]);
    const recipient = await waitFor(
      async () => {
        const read = await api('GET', '/users?email=stays-subscribed@example.org');
        return read.status === 200 ? read.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the recipient registered' },
    );
    expect(recipient.subscription.status).toBe('subscribed');
    // The next mail reaches the To person, and its copy to the unsubscribed cc is dropped.
    const next = await send({ user: { email: 'stays-subscribed@example.org' }, cc: ['leaves-as-cc@example.org'] });
    const sent = await sentMessage(next.body.message_id as string);
    expect(sent['dropped_copies']).toEqual([{ email: 'leaves-as-cc@example.org', kind: 'cc', reason: 'unsubscribed' }]);
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
    const tooMany = await send({ user, cc: addresses(25, 'c'), bcc: addresses(25, 'b') });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.type).toBe('/problems/too-many-copies');
    expect(tooMany.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/bcc']);
    const overOne = await send({ user, cc: addresses(50, 'c') });
    expect(overOne.status).toBe(400);
    expect(overOne.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/cc');
    const repeated = await send({ user, cc: ['Bad-Copies@example.org'], bcc: ['x@example.org', 'X@example.org'] });
    expect(repeated.status).toBe(422);
    expect(repeated.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/cc/0', '/bcc/1']);
    const notAnAddress = await send({ user, bcc: ['not an address'] });
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/bcc/0');

    const batch = await api('POST', '/emails/batch', {
      messages: [{ email_key: 'welcome', user, cc: addresses(50, 'c') }],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data[0]).toMatchObject({ status: 'rejected', error: { status: 400 } });
    expect(batch.body.data[0].error.errors.map((e: { pointer: string }) => e.pointer)).toContain('/messages/0/cc');
    expect((await api('GET', '/messages?email=bad-copies@example.org')).body.data).toEqual([]);
  });
});
