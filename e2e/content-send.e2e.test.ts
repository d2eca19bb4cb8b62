/** @postbus-system shared */
import { Resolver } from 'node:dns/promises';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { ReturnPathTokens } from '@postbus/crypto';
import { call, waitFor } from '@postbus/testing';
import { mailsAtSink } from './project-api';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

const DOMAIN = 'mail.content.example';

/**
 * Content sends (issue 49 item 1): an app's own subject and bodies, sent through the real stack
 * under every rule a template send keeps: DKIM, the signed return path, copies each in its own
 * transaction, attachments, the message log (source `api`, no template), and credentials that name
 * the project, as the SMTP submission service presents them.
 */
describe('content sends through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let resolver: Resolver;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN });
    resolver = new Resolver();
    resolver.setServers([system.dns.address]);
  }, 120_000);

  const api = (method: string, path: string, json?: unknown, auth = client.auth) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, { auth, ...(json !== undefined ? { json } : {}) });
  const sent = (id: string) =>
    waitFor(
      async () => {
        const read = await api('GET', `/messages/${id}`);
        return read.status === 200 && read.body.status === 'sent' ? (read.body as Record<string, unknown>) : undefined;
      },
      { timeoutMs: 30_000, what: `message ${id} sent` },
    );
  const mailsOf = (id: string, count: number) => mailsAtSink(system, id, DOMAIN, count);
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256))]);

  it('sends the app’s HTML and text as they are, DKIM-signed with the signed return path, the further to in the To header, the bcc in no header, the attachment byte for byte', async () => {
    const res = await api('POST', '/emails/send', {
      from: 'Content Shop <shop@mail.content.example>',
      to: ['Ann@Example.org', 'bea@example.org'],
      cc: ['cy@example.org'],
      bcc: ['archive@example.org'],
      subject: 'Your order {{data.order}}',
      html: '<p>Thanks for order <b>4711</b></p>',
      text: 'Thanks for order 4711',
      reply_to: 'help@mail.content.example',
      headers: { 'X-Order-Id': '4711' },
      tags: ['receipt'],
      metadata: { order: '4711' },
      attachments: [{ filename: 'invoice.pdf', content: pdf.toString('base64') }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'accepted', message_id: expect.stringMatching(/^msg_/) });
    const id = res.body.message_id as string;

    const mails = await mailsOf(id, 4);
    const returnPath = new ReturnPathTokens(system.env['TRACKING_SECRET']!);
    for (const { mail, raw } of mails) {
      expect(mail.Subject).toBe('Your order {{data.order}}');
      expect(mail.From).toMatchObject({ Name: 'Content Shop', Address: 'shop@mail.content.example' });
      expect(mail.To.map((a) => a.Address)).toEqual(['ann@example.org', 'bea@example.org']);
      expect(mail.Cc.map((a) => a.Address)).toEqual(['cy@example.org']);
      expect(mail.ReplyTo.map((a) => a.Address)).toEqual(['help@mail.content.example']);
      expect(mail.HTML).toContain('Thanks for order <b>4711</b>');
      expect(mail.Text).toContain('Thanks for order 4711');
      expect(raw).not.toContain('archive@example.org');
      const verified = await dkimVerify(Buffer.from(raw), {
        resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT'),
      });
      expect(verified.results[0]?.status.result).toBe('pass');
      expect(verified.results[0]?.signingDomain).toBe(DOMAIN);
      const bounce = String(mail.ReturnPath);
      expect(bounce.endsWith(`@pb-bounces.${DOMAIN}`)).toBe(true);
      expect(returnPath.verify(bounce.slice(0, bounce.indexOf('@')))).toMatchObject({ purpose: 'bounce', messageId: id });
    }
    const [attachment] = (await simpleParser(mails[0]!.raw)).attachments;
    expect(attachment).toMatchObject({ filename: 'invoice.pdf', contentType: 'application/pdf' });
    expect(Buffer.compare(attachment!.content, pdf)).toBe(0);

    const message = await sent(id);
    expect(message).toMatchObject({
      email: 'ann@example.org',
      email_key: null,
      source: 'api',
      template: null,
      to: ['bea@example.org'],
      cc: ['cy@example.org'],
      bcc: ['archive@example.org'],
      tags: ['receipt'],
      attachments: [{ filename: 'invoice.pdf', content_type: 'application/pdf', size: pdf.length }],
      delivered_copies: [
        { email: 'bea@example.org', kind: 'to' },
        { email: 'cy@example.org', kind: 'cc' },
        { email: 'archive@example.org', kind: 'bcc' },
      ],
    });
    // No user was named: nobody is registered, not even the recipient.
    expect((await api('GET', '/users?email=ann@example.org')).status).toBe(404);
  }, 120_000);

  it('registers a named user, reads a template send as one, and takes content and template items in one batch', async () => {
    const withUser = await api('POST', '/emails/send', {
      to: 'dee@example.org',
      subject: 'Welcome',
      text: 'Hello',
      user: { email: 'dee@example.org', name: 'Dee' },
    });
    expect(withUser.status).toBe(200);
    await sent(withUser.body.message_id as string);
    await waitFor(async () => ((await api('GET', '/users?email=dee@example.org')).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the named user registered',
    });

    const batch = await api('POST', '/emails/batch', {
      messages: [
        { to: 'eve@example.org', subject: 'Batch content', html: '<p>one</p>' },
        { email_key: 'welcome', user: { email: 'fay@example.org', name: 'Fay' }, data: { code: 1 } },
        { to: 'gus@example.org', subject: 'Off the domain', text: 'x', from: 'gus@elsewhere.example' },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data.map((r: { status: string }) => r.status)).toEqual(['accepted', 'accepted', 'rejected']);
    expect(batch.body.data[2].error).toMatchObject({ status: 422, errors: [{ pointer: '/messages/2/from' }] });
    const [content, template] = await Promise.all([sent(batch.body.data[0].message_id), sent(batch.body.data[1].message_id)]);
    expect(content).toMatchObject({ source: 'api', template: null, email_key: null, subject: 'Batch content' });
    expect(template).toMatchObject({ source: 'api', email_key: 'welcome', template: { id: expect.any(String), version: 1 } });
  }, 120_000);

  it("refuses a From off the project's verified domain, a send without a body and a user who is not the recipient, each naming its field", async () => {
    const off = await api('POST', '/emails/send', { to: 'a@example.org', subject: 'x', text: 'x', from: 'Someone <a@elsewhere.example>' });
    expect(off.status).toBe(422);
    expect(off.body.detail).toContain(DOMAIN);
    expect(off.body.errors).toEqual([{ pointer: '/from', message: expect.stringContaining(DOMAIN) }]);
    const bodiless = await api('POST', '/emails/send', { to: 'a@example.org', subject: 'x' });
    expect(bodiless.status).toBe(422);
    expect(bodiless.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/html']);
    const other = await api('POST', '/emails/send', { to: 'a@example.org', subject: 'x', text: 'x', user: { email: 'b@example.org' } });
    expect(other.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/user/email']);
  });

  it('takes credentials that name the project (as SMTP login gives them) for that project only, and never a forged submission token', async () => {
    const projectAuth = `Basic ${Buffer.from(`${client.projectId}:${client.apiKey}`).toString('base64')}`;
    const me = await call(system.gatewayUrl, 'GET', '/v1/auth/whoami', { auth: projectAuth });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      client_id: client.clientId,
      key_id: expect.stringMatching(/^key_/),
      scope: 'full',
      project_id: client.projectId,
    });
    const res = await api('POST', '/emails/send', { to: 'hal@example.org', subject: 'By project', text: 'x' }, projectAuth);
    expect(res.status).toBe(200);
    // Nothing outside the project: not the client's keys, not another project.
    expect((await call(system.gatewayUrl, 'GET', '/v1/keys', { auth: projectAuth })).status).toBe(403);
    const other = await call(system.gatewayUrl, 'POST', '/v1/projects', { auth: client.auth, json: { name: 'Other' } });
    expect((await call(system.gatewayUrl, 'GET', `/v1/projects/${other.body.id}`, { auth: projectAuth })).status).toBe(403);
    // A wrong key, or a project of another client, is a 401 like any bad credentials.
    const stranger = await createClientAndProject(system);
    const wrong = `Basic ${Buffer.from(`${stranger.projectId}:${client.apiKey}`).toString('base64')}`;
    expect((await call(system.gatewayUrl, 'GET', '/v1/auth/whoami', { auth: wrong })).status).toBe(401);
    // Only the submission service's signed token makes a send an SMTP one.
    const forged = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/send`, {
      auth: client.auth,
      headers: { 'X-Postbus-Submission': 'Bearer not-a-token' },
      json: { to: 'ivy@example.org', subject: 'x', text: 'x' },
    });
    expect(forged.status).toBe(401);
  }, 60_000);
});
