import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { createLogger } from '@postbus/logger';
import { createInboundSmtpServer, type InboundMail, type InboundSmtpOptions } from '../src/smtp/inbound-smtp';

const logger = createLogger({ service: 'inbound-test', level: 'error' });
const servers: SMTPServer[] = [];

async function start(overrides: Partial<InboundSmtpOptions> = {}) {
  const recorded: InboundMail[] = [];
  const server = createInboundSmtpServer({
    hostname: 'mx.postbus.test',
    acceptsDomain: (domain) => domain === 'pb-bounces.sender.test',
    record: (mail) => {
      recorded.push(mail);
      return Promise.resolve();
    },
    maxMessageBytes: 64 * 1024,
    connectionsPerMinute: 100,
    logger,
    ...overrides,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const send = (to: string, body = 'a bounce', extra: Record<string, unknown> = {}) =>
    nodemailer
      .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...extra })
      .sendMail({ envelope: { from: '', to }, raw: `From: MAILER-DAEMON@relay.test\r\nTo: ${to}\r\nSubject: x\r\n\r\n${body}\r\n` });
  return { port, recorded, send };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe('the inbound MX', () => {
  it('takes a mail for a return-path domain it knows, and answers 250 once it is recorded, bytes and envelope', async () => {
    const { recorded, send } = await start();
    const info = await send('B.0a1b2c3d4e5f60718293a4b5c6d7e8f9.aaaaaaaaaaaaaaaaaaaa@PB-BOUNCES.sender.test');
    expect(info.response).toMatch(/^250 /);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      mailFrom: '',
      rcptTo: ['B.0a1b2c3d4e5f60718293a4b5c6d7e8f9.aaaaaaaaaaaaaaaaaaaa@pb-bounces.sender.test'],
      remoteAddress: '127.0.0.1',
    });
    expect(recorded[0]!.raw.toString()).toContain('a bounce');
  });

  it('is no open relay: any other domain is refused with 550 at RCPT, and nothing is recorded', async () => {
    const { recorded, send } = await start();
    await expect(send('someone@victim.example')).rejects.toMatchObject({ responseCode: 550 });
    await expect(send('someone@sender.test')).rejects.toMatchObject({ responseCode: 550 });
    expect(recorded).toHaveLength(0);
  });

  it('answers 451 when the mail cannot be stored, so the sending MTA keeps it and retries', async () => {
    const { send } = await start({ record: () => Promise.reject(new Error('broker unavailable')) });
    await expect(send('x@pb-bounces.sender.test')).rejects.toMatchObject({ responseCode: 451 });
  });

  it('refuses a mail over the size limit with 552, and records nothing', async () => {
    const { recorded, send } = await start({ maxMessageBytes: 1024 });
    await expect(send('x@pb-bounces.sender.test', 'y'.repeat(4096))).rejects.toMatchObject({ responseCode: 552 });
    expect(recorded).toHaveLength(0);
  });

  it('answers 421 to an address past its connections per minute', async () => {
    const { send } = await start({ connectionsPerMinute: 2 });
    await send('x@pb-bounces.sender.test');
    await send('x@pb-bounces.sender.test');
    await expect(send('x@pb-bounces.sender.test')).rejects.toMatchObject({ responseCode: 421 });
  });

  it('offers STARTTLS only with a certificate, and takes mail over it', async () => {
    const plain = await start();
    await expect(plain.send('x@pb-bounces.sender.test', 'z', { ignoreTLS: false, requireTLS: true })).rejects.toThrow(/STARTTLS/);

    const dir = mkdtempSync(join(tmpdir(), 'inbound-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=mx.postbus.test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const tls = await start({ tls: { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) } });
    const info = await tls.send('x@pb-bounces.sender.test', 'over tls', {
      ignoreTLS: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
    });
    expect(info.response).toMatch(/^250 /);
    expect(tls.recorded).toHaveLength(1);
  });
});
