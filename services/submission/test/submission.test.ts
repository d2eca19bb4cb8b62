import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { jwtVerify } from 'jose';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { loadConfig } from '@postbus/config';
import { createLogger } from '@postbus/logger';
import { selfSignedCertificate } from '@postbus/smtp';
import { waitFor } from '@postbus/testing';
import { start, type SubmissionService } from '../src/app';
import { SubmissionConfig } from '../src/config';
import { API_KEY, LOCKED_KEY, PROJECT_ID, SENDER_DOMAIN, startFakeGateway } from './fake-gateway';

const logger = createLogger({ service: 'submission-test', level: 'error' });
const SECRET = 'submission-test-internal-api-secret-0123456789';
const MAX_BYTES = 64 * 1024;

/** SMTP submission in-process (real smtp-server, real TLS, Nodemailer as the app) against a real HTTP server standing in for the gateway. */
describe('SMTP submission', () => {
  let gateway: Awaited<ReturnType<typeof startFakeGateway>>;
  let service: SubmissionService;

  const startService = (env: Record<string, string> = {}) =>
    start({
      config: loadConfig(SubmissionConfig, {
        PORT: '0',
        SUBMISSION_PORT: '0',
        SUBMISSION_TLS_PORT: '0',
        SUBMISSION_HOSTNAME: 'smtp.postbus.test',
        GATEWAY_URL: gateway.url,
        INTERNAL_API_SECRET: SECRET,
        SUBMISSION_MAX_MESSAGE_BYTES: String(MAX_BYTES),
        SUBMISSION_GATEWAY_TIMEOUT_MS: '1000',
        SUBMISSION_PARSE_THREADS: '1',
        LOG_LEVEL: 'error',
        ...env,
      }),
      logger,
    });

  beforeAll(async () => {
    gateway = await startFakeGateway();
    service = await startService();
  });
  afterAll(async () => {
    await service?.stop();
    await gateway?.close();
  });
  beforeEach(() => {
    gateway.calls.length = 0;
    gateway.mode.send = 'accept';
  });

  /** Nodemailer as an app configures it: STARTTLS on the submission port, or implicit TLS on the other. */
  const transport = (options: { implicitTls?: boolean; auth?: { user: string; pass: string } | false; port?: number } = {}) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: options.port ?? (options.implicitTls ? service.smtpTlsPort : service.smtpPort),
      secure: options.implicitTls ?? false,
      requireTLS: !options.implicitTls,
      tls: { rejectUnauthorized: false },
      ...(options.auth === false ? {} : { auth: options.auth ?? { user: PROJECT_ID, pass: API_KEY } }),
    });
  const message = (overrides: Mail.Options = {}): Mail.Options => ({
    from: `Shop <billing@${SENDER_DOMAIN}>`,
    to: 'ada@example.org',
    subject: 'Your receipt',
    text: 'Thanks',
    html: '<p>Thanks</p>',
    ...overrides,
  });
  /** The SMTP error a send ends with (it must fail). */
  const refusal = async (sending: Promise<unknown>) => {
    const error = await sending.then(
      () => undefined,
      (e: unknown) => e as { responseCode?: number; response?: string; command?: string },
    );
    if (!error) throw new Error('the message was accepted');
    return error;
  };

  /** A plain SMTP conversation over a socket, as a client that does not know better would have it. */
  function converse(port: number) {
    const socket = connectTcp(port, '127.0.0.1');
    let said = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (said += chunk));
    socket.on('error', () => undefined);
    return {
      say: (line: string) => socket.write(`${line}\r\n`),
      heard: (pattern: RegExp) =>
        waitFor(() => pattern.test(said) || undefined, { timeoutMs: 5_000, what: `the server to say ${pattern}` }),
      end: () => socket.destroy(),
    };
  }

  it('takes a message over STARTTLS, hands the gateway one content send with the credentials and its own token, and answers 250 with its message id', async () => {
    const pdf = Buffer.from('%PDF-1.4 invoice 4711');
    const info = await transport().sendMail(
      message({
        to: 'Ada <ada@example.org>',
        cc: 'books@example.org',
        bcc: 'archive@example.org',
        replyTo: `help@${SENDER_DOMAIN}`,
        attachments: [{ filename: 'invoice-4711.pdf', content: pdf }],
        headers: { 'X-Order-Id': 'ord_4711', 'X-Postbus-Tags': 'receipt', 'X-Postbus-Idempotency-Key': 'order-4711' },
      }),
    );
    expect(info.response).toBe('250 2.0.0 msg_1 queued');
    expect(info.accepted).toEqual(['ada@example.org', 'books@example.org', 'archive@example.org']);

    expect(gateway.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /v1/auth/whoami',
      `POST /v1/projects/${PROJECT_ID}/emails/send`,
    ]);
    const [, send] = gateway.calls;
    expect(send!.body).toEqual({
      from: `Shop <billing@${SENDER_DOMAIN}>`,
      to: 'ada@example.org',
      cc: ['books@example.org'],
      bcc: ['archive@example.org'],
      subject: 'Your receipt',
      text: 'Thanks',
      html: '<p>Thanks</p>',
      reply_to: `help@${SENDER_DOMAIN}`,
      headers: { 'X-Order-ID': 'ord_4711' },
      attachments: [{ filename: 'invoice-4711.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' }],
      tags: ['receipt'],
    });
    expect(send!.headers['authorization']).toBe(`Basic ${Buffer.from(`${PROJECT_ID}:${API_KEY}`).toString('base64')}`);
    expect(send!.headers['content-type']).toBe('application/json');
    expect(send!.headers['idempotency-key']).toBe('order-4711');
    expect(send!.headers['x-postbus-client-address']).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    const token = String(send!.headers['x-postbus-submission']).replace(/^Bearer /, '');
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), { audience: 'gateway', issuer: 'submission' });
    expect(payload.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('takes a message over implicit TLS on the other port', async () => {
    const info = await transport({ implicitTls: true }).sendMail(message());
    expect(info.response).toMatch(/^250 2\.0\.0 msg_\d+ queued$/);
    expect(gateway.sends()).toHaveLength(1);
  });

  it('sends a message without X-Postbus-Idempotency-Key with no Idempotency-Key', async () => {
    const raw = `From: billing@${SENDER_DOMAIN}\r\nTo: ada@example.org\r\nSubject: once\r\nMessage-ID: <once@app.example>\r\n\r\nbody\r\n`;
    await transport().sendMail({ envelope: { from: `billing@${SENDER_DOMAIN}`, to: ['ada@example.org'] }, raw });
    expect(gateway.sends()[0]!.headers).not.toHaveProperty('idempotency-key');
  });

  it('refuses AUTH before TLS on the STARTTLS port, and never asks the gateway', async () => {
    const client = converse(service.smtpPort);
    await client.heard(/^220 /m);
    client.say('EHLO app.example');
    await client.heard(/^250 /m);
    client.say(`AUTH PLAIN ${Buffer.from(`\0${PROJECT_ID}\0${API_KEY}`).toString('base64')}`);
    await client.heard(/^538 .*STARTTLS/m);
    client.end();
    expect(gateway.calls).toEqual([]);
  });

  it('answers MAIL without AUTH with 530 5.7.0', async () => {
    const error = await refusal(transport({ auth: false }).sendMail(message()));
    expect(error.responseCode).toBe(530);
    expect(error.response).toBe('530 5.7.0 Authentication required');
    expect(gateway.sends()).toEqual([]);
  });

  it('answers wrong credentials with 535 5.7.8, and a locked-out address with 454 4.7.0 and its wait', async () => {
    const wrong = await refusal(transport({ auth: { user: PROJECT_ID, pass: 'pb_full_wrong' } }).sendMail(message()));
    expect(wrong.responseCode).toBe(535);
    expect(wrong.response).toBe('535 5.7.8 Authentication credentials invalid');
    const locked = await refusal(transport({ auth: { user: PROJECT_ID, pass: LOCKED_KEY } }).sendMail(message()));
    expect(locked.responseCode).toBe(454);
    expect(locked.response).toBe('454 4.7.0 Too many failed logins from this address; retry after 30 s');
    expect(gateway.sends()).toEqual([]);
  });

  it('refuses a message over the size limit with 552 5.3.4, and hands nothing to the gateway', async () => {
    const error = await refusal(transport().sendMail(message({ text: 'x'.repeat(MAX_BYTES * 2) })));
    expect(error.responseCode).toBe(552);
    expect(error.response).toMatch(/^552 5\.3\.4 /);
    expect(gateway.sends()).toEqual([]);
  });

  it.each([
    ['answers 503 (the bus down)', 'unavailable' as const],
    ['resets the connection', 'reset' as const],
    ['does not answer in time', 'slow' as const],
  ])('answers 451 4.3.0 when the gateway %s: nothing was accepted', async (_case, mode) => {
    const mailer = transport();
    await mailer.verify(); // logged in while the gateway answers
    gateway.mode.send = mode;
    const error = await refusal(mailer.sendMail(message()));
    expect(error.responseCode).toBe(451);
    expect(error.response).toMatch(/^451 4\.3\.0 .*nothing was accepted/);
  });

  it('answers 454 at login when the gateway is down, so that the client retries', async () => {
    const down = await startService({ GATEWAY_URL: 'http://127.0.0.1:1' });
    try {
      const error = await refusal(transport({ port: down.smtpPort }).sendMail(message()));
      expect(error.responseCode).toBe(454);
    } finally {
      await down.stop();
    }
  });

  it('answers a rate limit with 451 4.7.1 and its wait', async () => {
    gateway.mode.send = 'rate-limited';
    const error = await refusal(transport().sendMail(message()));
    expect(error.response).toBe('451 4.7.1 This client may send 10 messages a second; retry after 2 s.');
  });

  it('refuses a From outside the project’s verified domain with 550 5.7.1, naming the domain', async () => {
    const error = await refusal(transport().sendMail(message({ from: 'someone@elsewhere.example' })));
    expect(error.responseCode).toBe(550);
    expect(error.response).toMatch(new RegExp(`^550 5\\.7\\.1 from must be an address at ${SENDER_DOMAIN.replace('.', '\\.')}`));
  });

  it('refuses malformed MIME with 550 5.6.0 naming the problem, before the gateway', async () => {
    const raw = `From: billing@${SENDER_DOMAIN}\r\nTo: ada@example.org\r\nSubject: x\r\nContent-Type: multipart/mixed\r\n\r\nno parts\r\n`;
    const error = await refusal(transport().sendMail({ envelope: { from: `billing@${SENDER_DOMAIN}`, to: ['ada@example.org'] }, raw }));
    expect(error.response).toMatch(/^550 5\.6\.0 Malformed MIME: .*no boundary/);
    expect(gateway.sends()).toEqual([]);
  });

  it('refuses recipients past the limit of one message with 452', async () => {
    const limited = await startService({ SUBMISSION_RECIPIENTS_PER_TRANSACTION: '2' });
    try {
      const info = await transport({ port: limited.smtpPort }).sendMail(
        message({ to: ['a@example.org', 'b@example.org', 'c@example.org'] }),
      );
      expect(info.rejected).toEqual(['c@example.org']);
      expect(gateway.sends()[0]!.body).toMatchObject({ to: ['a@example.org', 'b@example.org'] });
    } finally {
      await limited.stop();
    }
  });

  describe('its certificate', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'submission-tls-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** The subject of the certificate the implicit TLS port shows a new connection. */
    const shownSubject = (port: number) =>
      new Promise<string>((resolve, reject) => {
        const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          resolve(new X509Certificate(socket.getPeerX509Certificate()!.raw).subject);
          socket.destroy();
        });
        socket.once('error', reject);
      });

    it('comes from the files, and a new pair of files is shown to the connections that follow', async () => {
      const write = ({ key, cert }: { key: Buffer; cert: Buffer }) => {
        writeFileSync(join(dir, 'key.pem'), key);
        writeFileSync(join(dir, 'cert.pem'), cert);
      };
      write(await selfSignedCertificate('first.postbus.test'));
      const withFiles = await startService({
        SUBMISSION_TLS_KEY_FILE: join(dir, 'key.pem'),
        SUBMISSION_TLS_CERT_FILE: join(dir, 'cert.pem'),
        SUBMISSION_TLS_WATCH_MS: '100',
      });
      try {
        expect(withFiles.selfSigned).toBe(false);
        expect(await shownSubject(withFiles.smtpTlsPort)).toBe('CN=first.postbus.test');
        write(await selfSignedCertificate('second.postbus.test'));
        await waitFor(async () => ((await shownSubject(withFiles.smtpTlsPort)) === 'CN=second.postbus.test' ? true : undefined), {
          timeoutMs: 10_000,
          what: 'the new certificate shown',
        });
        const info = await transport({ port: withFiles.smtpPort }).sendMail(message());
        expect(info.response).toMatch(/^250 /);
      } finally {
        await withFiles.stop();
      }
    });

    it('is self-signed for SUBMISSION_HOSTNAME in development without files, and required in production', async () => {
      expect(service.selfSigned).toBe(true);
      expect(await shownSubject(service.smtpTlsPort)).toBe('CN=smtp.postbus.test');
      const nodeEnv = process.env['NODE_ENV'];
      process.env['NODE_ENV'] = 'production';
      try {
        await expect(startService()).rejects.toThrow(
          'SUBMISSION_TLS_KEY_FILE and SUBMISSION_TLS_CERT_FILE must be set when NODE_ENV=production',
        );
      } finally {
        if (nodeEnv === undefined) delete process.env['NODE_ENV'];
        else process.env['NODE_ENV'] = nodeEnv;
      }
    });
  });
});
