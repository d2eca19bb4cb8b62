import nodemailer, { type Transporter } from 'nodemailer';

/** A copy's address the relay refused at RCPT TO while it took the message for the recipient. */
export interface RefusedCopy {
  address: string;
  code: number;
  response: string;
}

export type DeliveryOutcome =
  | { status: 'sent'; code: number; response: string; refusedCopies?: RefusedCopy[] }
  | { status: 'deferred' | 'bounced'; code: number; response: string };

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
export class SmtpRelay {
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

  /**
   * One SMTP transaction for the recipient and the message's copies (cc and bcc alike: only the
   * envelope names the bcc ones). The outcome is the recipient's: a copy the relay refuses while it
   * takes the recipient is reported on its own, and a recipient refused is the message's bounce or
   * deferral even when copies were taken.
   */
  async send(from: string, to: string, raw: Buffer, copies: string[] = []): Promise<DeliveryOutcome> {
    try {
      const info = (await this.transport.sendMail({ envelope: { from, to: [to, ...copies] }, raw })) as {
        response?: string;
        rejectedErrors?: Array<SmtpError & { recipient?: string }>;
      };
      const refused = (info.rejectedErrors ?? []).map((e) => ({ address: e.recipient ?? '', ...replyOf(e) }));
      const recipientRefused = refused.find((r) => r.address === to);
      if (recipientRefused) return outcomeOfRefusal(recipientRefused);
      return {
        status: 'sent',
        code: codeOf(info.response, 250),
        response: info.response ?? '250',
        ...(refused.length > 0 ? { refusedCopies: refused } : {}),
      };
    } catch (error) {
      return outcomeOfRefusal(replyOf(error));
    }
  }

  close(): void {
    this.transport.close();
  }
}
