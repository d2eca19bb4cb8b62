import nodemailer, { type Transporter } from 'nodemailer';
import type { DeliveryOutcome, Relay } from '../domain/ports/delivery';

interface SmtpError {
  responseCode?: number;
  response?: string;
  code?: string;
  message?: string;
}

/** Reads the SMTP reply code off a "250 2.0.0 OK" style response line. */
const codeOf = (response: string | undefined, fallback: number) => Number(/^(\d{3})/.exec(response ?? '')?.[1] ?? fallback);

const replyOf = (error: unknown): { code: number; response: string } => {
  const e = error as SmtpError;
  return { code: e.responseCode ?? codeOf(e.response, 0), response: (e.response ?? e.message ?? String(error)).slice(0, 500) };
};

const outcomeOfRefusal = ({ code, response }: { code: number; response: string }): DeliveryOutcome => ({
  status: code >= 500 && code < 600 ? 'bounced' : 'deferred',
  code,
  response,
});

/**
 * The relay, through nodemailer's pooled SMTP transport, sending messages already composed and
 * signed. A 5xx reply is a bounce; a 4xx reply or a connection problem is a deferral.
 */
export class SmtpRelay implements Relay {
  private readonly transport: Transporter;

  constructor(url: string, connections: number) {
    const parsed = new URL(url);
    this.transport = nodemailer.createTransport({
      pool: true,
      host: parsed.hostname,
      port: Number(parsed.port || (parsed.protocol === 'smtps:' ? 465 : 25)),
      secure: parsed.protocol === 'smtps:',
      ...(parsed.username ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } } : {}),
      maxConnections: connections,
      maxMessages: Infinity,
      // A message is never put back on the queue after a connection broke mid-send: the relay may
      // have taken it, and our own retry (with the same Message-ID) decides what happens next.
      maxRequeues: 0,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  /** One SMTP transaction for one address: a message's recipient, or one of its copies (each has its own return path). */
  async send(from: string, to: string, raw: Buffer): Promise<DeliveryOutcome> {
    try {
      const info = (await this.transport.sendMail({ envelope: { from, to: [to] }, raw })) as { response?: string };
      return { status: 'sent', code: codeOf(info.response, 250), response: info.response ?? '250' };
    } catch (error) {
      return outcomeOfRefusal(replyOf(error));
    }
  }

  close(): void {
    this.transport.close();
  }
}
