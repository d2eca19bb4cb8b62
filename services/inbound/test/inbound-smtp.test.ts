import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { createLogger } from '@postbus/logger';
import { waitFor } from '@postbus/testing';
import { createInboundSmtpServer, type InboundLimits, type InboundMail, type InboundSmtpOptions } from '../src/smtp/inbound-smtp';

const logger = createLogger({ service: 'inbound-test', level: 'error' });
const LIMITS: InboundLimits = {
  connections: 100,
  connectionsPerNetwork: 20,
  connectionsPerMinute: 100,
  commandsPerConnection: 100,
  transactionsPerConnection: 20,
  recipientsPerTransaction: 50,
  connectionLifetimeMs: 60_000,
};

/** A plain SMTP conversation over a socket: what the server said so far, and whether it hung up. */
function converse(port: number) {
  const socket = connect(port, '127.0.0.1');
  let said = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (said += chunk));
  let closed = false;
  socket.once('close', () => (closed = true));
  socket.on('error', () => undefined);
  return {
    say: (line: string) => socket.write(`${line}\r\n`),
    heard: (pattern: RegExp) => waitFor(() => pattern.test(said) || undefined, { timeoutMs: 5_000, what: `the server to say ${pattern}` }),
    saw: (pattern: RegExp) => pattern.test(said),
    hungUp: () => waitFor(() => closed || undefined, { timeoutMs: 5_000, what: 'the server to close the connection' }),
    end: () => socket.destroy(),
  };
}
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
    keptBytes: 16 * 1024,
    logger,
    ...overrides,
    limits: { ...LIMITS, ...overrides.limits },
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

  it('holds only the head of a mail it keeps, and says the rest was cut', async () => {
    const { recorded, send } = await start({ keptBytes: 1024 });
    await send('x@pb-bounces.sender.test', 'y'.repeat(10_000));
    expect(recorded[0]!.raw.length).toBe(1024);
    expect(recorded[0]!.truncated).toBe(true);
    await send('x@pb-bounces.sender.test', 'short');
    expect(recorded[1]!.truncated).toBe(false);
  });

  it('answers 421 to a network past its connections per minute', async () => {
    const { send } = await start({ limits: { ...LIMITS, connectionsPerMinute: 2 } });
    await send('x@pb-bounces.sender.test');
    await send('x@pb-bounces.sender.test');
    await expect(send('x@pb-bounces.sender.test')).rejects.toMatchObject({ responseCode: 421 });
  });

  it('answers 421 past the connections open at once from one network, and takes the next once one closes', async () => {
    const { port } = await start({ limits: { ...LIMITS, connectionsPerNetwork: 2 } });
    const first = converse(port);
    const second = converse(port);
    await Promise.all([first.heard(/^220 /m), second.heard(/^220 /m)]);
    const third = converse(port);
    await third.heard(/^421 4\.7\.0 Too many open connections from your network/m);
    await third.hungUp();
    first.end();
    await waitFor(
      async () => {
        const next = converse(port);
        try {
          await next.heard(/^(220|421) /m);
          return next.saw(/^220 /m) || undefined;
        } finally {
          next.end();
        }
      },
      { timeoutMs: 5_000, what: 'a connection taken once one closed' },
    );
    second.end();
  });

  it('closes a connection past its commands with 421: a NOOP loop holds it no longer', async () => {
    const { port } = await start({ limits: { ...LIMITS, commandsPerConnection: 10 } });
    const client = converse(port);
    await client.heard(/^220 /m);
    client.say('EHLO relay.test');
    for (let i = 0; i < 20; i++) client.say('NOOP');
    await client.heard(/^421 4\.7\.0 Too many commands/m);
    await client.hungUp();
  });

  it('closes a connection open past its lifetime with 421, however busy', async () => {
    const { port } = await start({ limits: { ...LIMITS, connectionLifetimeMs: 1_000 } });
    const client = converse(port);
    await client.heard(/^220 /m);
    const keepBusy = setInterval(() => client.say('NOOP'), 200);
    try {
      await client.heard(/^421 4\.4\.2 Connection open too long/m);
      await client.hungUp();
    } finally {
      clearInterval(keepBusy);
    }
  });

  it('refuses recipients past the limit of one mail with 452, and mails past the limit of one connection with 421', async () => {
    const { recorded, port } = await start({ limits: { ...LIMITS, recipientsPerTransaction: 2, transactionsPerConnection: 2 } });
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
    });
    try {
      const raw = 'From: MAILER-DAEMON@relay.test\r\nSubject: x\r\n\r\nx\r\n';
      const to = ['a@pb-bounces.sender.test', 'b@pb-bounces.sender.test', 'c@pb-bounces.sender.test'];
      const info = await transport.sendMail({ envelope: { from: '', to }, raw });
      expect(info.rejected).toEqual(['c@pb-bounces.sender.test']);
      expect(recorded[0]!.rcptTo).toEqual(to.slice(0, 2));
      await transport.sendMail({ envelope: { from: '', to: to[0]! }, raw });
      await expect(transport.sendMail({ envelope: { from: '', to: to[0]! }, raw })).rejects.toMatchObject({ responseCode: 421 });
      expect(recorded).toHaveLength(2);
    } finally {
      transport.close();
    }
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
