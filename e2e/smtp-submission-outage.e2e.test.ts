import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { sleep } from '@postbus/testing';
import { withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';

const DOMAIN = 'mail.smtp-outage.example';

/**
 * SMTP submission when the gateway cannot take a message (issue 49): a gateway that is down is a
 * 451 4.3.0 with nothing accepted, and the client's retry goes through once it is back; the
 * per-client message rate that limits HTTP sends limits SMTP alike, with 451 4.7.1. A system of
 * its own: it stops the gateway, and its rate limit is one message a second.
 */
describe('SMTP submission when the gateway cannot take the message', () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient(
    { sendable: { domain: DOMAIN }, start: [{ MESSAGE_RATE_LIMIT_PER_SECOND: '1' }, { submission: true }], timeoutMs: 180_000 },
    (started) => ({ system, client } = started),
  );

  /** An app's pooled Nodemailer transport: one connection, logged in once, that sends message after message. */
  const pooled = (maxConnections = 1) =>
    nodemailer.createTransport({
      pool: true,
      maxConnections,
      host: '127.0.0.1',
      port: system.submission!.smtpPort,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: client.projectId, pass: client.apiKey },
    });
  const message = (n: number): Mail.Options => ({
    from: `Shop <billing@${DOMAIN}>`,
    to: `buyer-${n}@example.org`,
    subject: `Order ${n}`,
    text: `Order ${n} confirmed.`,
  });
  const outcome = (sending: Promise<{ response: string }>) =>
    sending.then(
      (info) => info.response,
      (error: unknown) => String((error as { response?: string }).response ?? error),
    );

  it('answers 451 4.3.0 while the gateway is down, nothing accepted, and takes the retry once it is back', async () => {
    const transport = pooled();
    try {
      expect(await outcome(transport.sendMail(message(1)))).toMatch(/^250 2\.0\.0 msg_\S+ queued$/);
      await system.services.gateway.stop();
      expect(await outcome(transport.sendMail(message(2)))).toMatch(/^451 4\.3\.0 .*nothing was accepted/);
      await system.restart('gateway');
      expect(await outcome(transport.sendMail(message(2)))).toMatch(/^250 2\.0\.0 msg_\S+ queued$/);
    } finally {
      transport.close();
    }
  }, 120_000);

  it('answers a client past its message rate with 451 4.7.1 and its wait, as HTTP answers 429', async () => {
    // Eight at once on four connections, in a second of their own: at one message a second, the
    // first goes and most of the others find the second taken.
    await sleep(1_100);
    const transport = pooled(4);
    try {
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => outcome(transport.sendMail(message(10 + i)))));
      expect(replies.some((reply) => /^250 /.test(reply))).toBe(true);
      expect(replies.find((reply) => reply.startsWith('451'))).toMatch(/^451 4\.7\.1 .*retry after \d+ s/);
    } finally {
      transport.close();
    }
  }, 60_000);
});
