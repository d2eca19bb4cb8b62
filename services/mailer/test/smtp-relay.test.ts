import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SmtpRelay } from '../src/clients/smtp-relay';

/**
 * What the relay client makes of a server's answers, against a real SMTP server: one transaction
 * per address (a message's recipient, or one of its copies), a 5xx refusal a bounce, a 4xx one a
 * deferral, and the envelope sender as given.
 */
describe('SmtpRelay against an SMTP server refusing some recipients', () => {
  /** What the server received: each message's envelope sender and recipients. */
  const received: Array<{ from: string; to: string[] }> = [];
  const refusals = new Map([
    ['gone@example.org', { code: 550, text: '5.1.1 no such user' }],
    ['full@example.org', { code: 452, text: '4.2.2 mailbox full' }],
  ]);
  let server: SMTPServer;
  let relay: SmtpRelay;
  const raw = Buffer.from('From: a@mail.example.com\r\nTo: buyer@example.org\r\nSubject: hi\r\n\r\nhello\r\n');

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      hideSTARTTLS: true,
      disableReverseLookup: true,
      logger: false,
      onRcptTo(address, _session, callback) {
        const refusal = refusals.get(address.address);
        callback(refusal ? Object.assign(new Error(refusal.text), { responseCode: refusal.code }) : null);
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          });
          callback(null, 'OK: queued');
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = new SmtpRelay(`smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, 1);
  });

  afterAll(async () => {
    relay.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('an address taken is sent, in a transaction of its own with the given envelope sender', async () => {
    const before = received.length;
    const outcome = await relay.send('b2.x@bounces.example.com', 'cc@example.org', raw);
    expect(outcome).toMatchObject({ status: 'sent', code: 250 });
    expect(outcome.response).toContain('OK: queued');
    expect(received.slice(before)).toEqual([{ from: 'b2.x@bounces.example.com', to: ['cc@example.org'] }]);
  });

  it('an address refused with a 5xx bounces, with a 4xx defers, and nothing is sent', async () => {
    const before = received.length;
    const bounced = await relay.send('b@bounces.example.com', 'gone@example.org', raw);
    expect(bounced).toMatchObject({ status: 'bounced', code: 550 });
    expect(bounced.response).toContain('5.1.1 no such user');
    expect(await relay.send('b@bounces.example.com', 'full@example.org', raw)).toMatchObject({ status: 'deferred', code: 452 });
    expect(received.length).toBe(before);
  });
});
