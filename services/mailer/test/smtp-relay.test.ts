import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SmtpRelay } from '../src/clients/smtp-relay';

/**
 * What the relay client makes of a partial refusal at RCPT TO, against a real SMTP server: nodemailer
 * sends the message once any recipient of the envelope is accepted, so copies accepted while the
 * recipient is refused are delivered, and say so.
 */
describe('SmtpRelay against an SMTP server refusing some recipients', () => {
  /** What the server received: each message's envelope recipients. */
  const received: string[][] = [];
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
          received.push(session.envelope.rcptTo.map((r) => r.address));
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

  it('a recipient refused with a 5xx bounces the message, and the copies the server accepted are sent all the same', async () => {
    const before = received.length;
    const outcome = await relay.send('b@bounces.example.com', 'gone@example.org', raw, [
      'cc@example.org',
      'full@example.org',
      'bcc@example.org',
    ]);
    expect(outcome).toMatchObject({ status: 'bounced', code: 550, acceptedCopies: ['cc@example.org', 'bcc@example.org'] });
    expect(outcome.refusedCopies).toEqual([expect.objectContaining({ address: 'full@example.org', code: 452 })]);
    // One transaction went through DATA, to the accepted copies alone.
    expect(received.slice(before)).toEqual([['cc@example.org', 'bcc@example.org']]);
  });

  it('a recipient refused with a 4xx defers the message; the accepted copies were sent', async () => {
    const before = received.length;
    const outcome = await relay.send('b@bounces.example.com', 'full@example.org', raw, ['cc@example.org']);
    expect(outcome).toMatchObject({ status: 'deferred', code: 452, acceptedCopies: ['cc@example.org'] });
    expect(received.slice(before)).toEqual([['cc@example.org']]);
  });

  it('every recipient refused: nothing is sent, and no copy is said to be', async () => {
    const before = received.length;
    const outcome = await relay.send('b@bounces.example.com', 'gone@example.org', raw, ['full@example.org']);
    expect(outcome.status).toBe('deferred'); // nodemailer reports the temporary refusal when there is one
    expect(outcome.acceptedCopies).toBeUndefined();
    expect(received.length).toBe(before);
  });

  it('the recipient taken and a copy refused: sent, the copy named as refused', async () => {
    const outcome = await relay.send('b@bounces.example.com', 'buyer@example.org', raw, ['gone@example.org', 'cc@example.org']);
    expect(outcome).toMatchObject({ status: 'sent', code: 250, acceptedCopies: ['cc@example.org'] });
    expect(outcome.refusedCopies).toEqual([expect.objectContaining({ address: 'gone@example.org', code: 550 })]);
  });
});
