/** @postbus-system shared */
import { createHash, randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { call, waitFor } from '@postbus/testing';
import { projectCall, withSystemAndClient } from './project-api';
import {
  djangoClient,
  nodemailerClient,
  peerCertificate,
  smtplibClient,
  swaksClient,
  type SmtpClient,
  type SmtpSpec,
} from './smtp-clients/clients';
import type { DemoClient, RunningSystem } from './system';

const DOMAIN = 'mail.smtp-submission.example';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * SMTP submission through the real stack, with clients no one here wrote (issue 49): Nodemailer,
 * Python's smtplib, swaks and Django's SMTP backend each send HTML, text, an attachment, a cc and
 * a bcc; each mail arrives DKIM-signed with Postbus's return path and the attachment byte for
 * byte, and the message log shows the message with source `smtp`. The refusals give their codes.
 */
describe('SMTP submission: apps’ own mailers send through Postbus', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let resolver: Resolver;
  let dir: string;
  let cafile: string;

  withSystemAndClient({ sendable: { domain: DOMAIN }, shared: true, timeoutMs: 120_000 }, (started) => ({ system, client } = started));

  beforeAll(async () => {
    if (!system.submission) throw new Error('the shared system runs SMTP submission');
    resolver = new Resolver();
    resolver.setServers([system.dns.address]);
    dir = mkdtempSync(join(tmpdir(), 'smtp-submission-e2e-'));
    cafile = join(dir, 'submission-cert.pem');
    writeFileSync(cafile, await peerCertificate('127.0.0.1', system.submission.smtpTlsPort));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);

  /** What `tool` sends: to, cc and bcc addresses of its own, both bodies, a PDF of its own, a tag and a custom header. */
  function specFor(tool: string, tls: SmtpSpec['tls'], overrides: Partial<SmtpSpec> = {}): { spec: SmtpSpec; pdf: Buffer } {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(48 * 1024)]);
    const attachment = join(dir, `invoice-${tool}.pdf`);
    writeFileSync(attachment, pdf);
    const spec: SmtpSpec = {
      host: '127.0.0.1',
      port: tls === 'implicit' ? system.submission!.smtpTlsPort : system.submission!.smtpPort,
      tls,
      cafile,
      user: client.projectId,
      password: client.apiKey,
      from: `Shop Billing <billing@${DOMAIN}>`,
      to: [`to-${tool}@example.org`],
      cc: [`cc-${tool}@example.org`],
      bcc: [`bcc-${tool}@example.org`],
      subject: `Your receipt, sent by ${tool}`,
      text: `Thanks for your order, sent by ${tool}.`,
      html: `<p>Thanks for your order, sent by <b>${tool}</b>.</p>`,
      attachment,
      headers: { 'X-Postbus-Tags': `smtp-e2e,${tool}`, 'X-Order-Id': `order-${tool}` },
      ...overrides,
    };
    return { spec, pdf };
  }

  /** The message's id: from the 250 reply, or (a client that does not say it) from the message log by its recipient. */
  async function messageIdOf(reply: string, recipient: string): Promise<string> {
    const named = /^2\.0\.0 (\S+) queued/.exec(reply)?.[1];
    if (named) return named;
    return waitFor(
      async () => {
        const listed = await api('GET', `/messages?email=${encodeURIComponent(recipient)}`);
        return (listed.body?.data as Array<{ id: string }> | undefined)?.[0]?.id;
      },
      { timeoutMs: 30_000, what: `the message to ${recipient} in the message log` },
    );
  }

  it.each<[string, SmtpClient, SmtpSpec['tls']]>([
    ['nodemailer', nodemailerClient, 'starttls'],
    ['smtplib', smtplibClient, 'implicit'],
    ['swaks', swaksClient, 'starttls'],
    ['django', djangoClient, 'implicit'],
  ])(
    '%s sends HTML, text, an attachment, a cc and a bcc: three mails arrive DKIM-signed with the return path and the file, and the log says source smtp',
    async (tool, send, tls) => {
      const { spec, pdf } = specFor(tool, tls);
      const outcome = await send(spec);
      expect(outcome.code).toBe(250);
      if (tool !== 'django') expect(outcome.reply).toMatch(/^2\.0\.0 msg_\S+ queued$/);
      const id = await messageIdOf(outcome.reply, spec.to[0]!);

      // The recipient's mail and one for each copy, each in its own SMTP transaction.
      const found = await waitFor(
        async () => {
          const { messages } = await system.sink.client.search(`message-id:${id}@${DOMAIN}`);
          return messages.length >= 3 ? messages : undefined;
        },
        { timeoutMs: 30_000, what: `the three mails of ${tool}'s message` },
      );
      expect(found).toHaveLength(3);
      for (const { ID } of found) {
        const [mail, raw] = await Promise.all([system.sink.client.get(ID), system.sink.client.raw(ID)]);
        const verified = await dkimVerify(Buffer.from(raw), {
          resolver: (name: string, type: string) => resolver.resolve(name, type as 'TXT'),
        });
        expect(verified.results[0]?.status.result).toBe('pass');
        expect(verified.results[0]?.signingDomain).toBe(DOMAIN);
        expect(String(mail.ReturnPath)).toMatch(new RegExp(`@pb-bounces\\.${DOMAIN.replace(/\./g, '\\.')}$`));
        expect(mail.From).toEqual({ Name: 'Shop Billing', Address: `billing@${DOMAIN}` });
        expect(mail.To.map((a) => a.Address)).toEqual([`to-${tool}@example.org`]);
        expect(mail.Cc.map((a) => a.Address)).toEqual([`cc-${tool}@example.org`]);
        expect(mail.Subject).toBe(spec.subject);
        expect(raw).not.toContain(`bcc-${tool}@example.org`); // named in no header, and not in the return path
        const parsed = await simpleParser(Buffer.from(raw));
        expect(parsed.html || '').toContain(spec.html);
        expect(parsed.text ?? '').toContain(spec.text);
        expect(parsed.headers.get('x-order-id')).toBe(`order-${tool}`);
        expect(parsed.headers.has('x-postbus-tags')).toBe(false);
        const file = parsed.attachments.find((a) => a.filename === `invoice-${tool}.pdf`);
        expect(file?.contentType).toBe('application/pdf');
        expect(sha256(file!.content)).toBe(sha256(pdf));
      }

      const message = await waitFor(
        async () => {
          const read = await api('GET', `/messages/${id}`);
          return read.status === 200 && read.body.status === 'sent' ? (read.body as Record<string, unknown>) : undefined;
        },
        { timeoutMs: 30_000, what: `${tool}'s message sent` },
      );
      expect(message).toMatchObject({
        source: 'smtp',
        email: `to-${tool}@example.org`,
        cc: [`cc-${tool}@example.org`],
        bcc: [`bcc-${tool}@example.org`],
        tags: ['smtp-e2e', tool],
      });
    },
    120_000,
  );

  describe('the refusals give their codes', () => {
    it('wrong credentials: 535 5.7.8', async () => {
      const { spec } = specFor('wrong-key', 'starttls', { password: 'pb_full_not-a-key' });
      expect(await nodemailerClient(spec)).toEqual({ code: 535, reply: '5.7.8 Authentication credentials invalid' });
      expect(await smtplibClient({ ...spec, tls: 'implicit', port: system.submission!.smtpTlsPort })).toMatchObject({ code: 535 });
    });

    /** Nodemailer over STARTTLS, logged in or not, sending a message or the raw bytes given. */
    const sendWithNodemailer = async (message: Mail.Options, login: boolean | { user: string; pass: string } = true) => {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: system.submission!.smtpPort,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
        ...(login ? { auth: login === true ? { user: client.projectId, pass: client.apiKey } : login } : {}),
      });
      try {
        await transport.sendMail(message);
        return undefined;
      } catch (error) {
        return error as { responseCode?: number; response?: string };
      } finally {
        transport.close();
      }
    };

    it('a key bound to the project logs in with any user name', async () => {
      const made = await call(system.gatewayUrl, 'POST', '/v1/keys', {
        auth: client.auth,
        json: { name: 'smtp', scope: 'sdk', project_id: client.projectId },
      });
      expect(made.status).toBe(201);
      const pass = made.body.api_key as string;
      const mail = { from: `billing@${DOMAIN}`, to: 'ada@example.org', subject: 'bound key', text: 'x' };
      expect(await sendWithNodemailer(mail, { user: 'apikey', pass })).toBeUndefined();
      // The user name may be anything but another project's id.
      expect(await sendWithNodemailer(mail, { user: 'ffffffffffffffffffffffff', pass })).toMatchObject({ responseCode: 535 });
    });

    it('mail without a login: 530 5.7.0', async () => {
      const error = await sendWithNodemailer({ from: `billing@${DOMAIN}`, to: 'ada@example.org', subject: 'x', text: 'x' }, false);
      expect(error).toMatchObject({ responseCode: 530, response: '530 5.7.0 Authentication required' });
    });

    it('a From outside the project’s verified domain: 550 5.7.1 naming the domain', async () => {
      const { spec } = specFor('foreign-from', 'starttls', { from: 'Someone <someone@elsewhere.example>' });
      const outcome = await swaksClient(spec);
      expect(outcome.code).toBe(550);
      expect(outcome.reply).toMatch(/^5\.7\.1 .*mail\.smtp-submission\.example/);
    });

    it('a message over 10 MB: 552 5.3.4', async () => {
      const big = join(dir, 'big.pdf');
      writeFileSync(big, randomBytes(8 * 1024 * 1024)); // 10.7 MB once base64-encoded
      const { spec } = specFor('too-big', 'implicit', { attachment: big });
      const outcome = await smtplibClient(spec);
      expect(outcome.code).toBe(552);
      expect(outcome.reply).toMatch(/^5\.3\.4 /);
    });

    it('malformed MIME: 550 5.6.0 naming the problem', async () => {
      const raw = `From: billing@${DOMAIN}\r\nTo: ada@example.org\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n\r\nno parts\r\n`;
      const error = await sendWithNodemailer({ envelope: { from: `billing@${DOMAIN}`, to: ['ada@example.org'] }, raw });
      expect(error?.responseCode).toBe(550);
      expect(error?.response).toMatch(/^550 5\.6\.0 Malformed MIME: .*no boundary/);
    });
  });
});
