import nodemailer, { type Transporter } from 'nodemailer';

/** A copy's address the relay refused at RCPT TO while it took the message for the recipient. */
export interface RefusedCopy {
  address: string;
  code: number;
  response: string;
}

/**
 * What the relay said of the recipient (`status`, `code`, `response`), and of the copies sent with
 * it: those it refused at RCPT TO, and those it took. It takes the copies it accepted at RCPT TO
 * whatever it said of the recipient: nodemailer goes on to DATA once any recipient is accepted.
 */
export interface DeliveryOutcome {
  status: 'sent' | 'deferred' | 'bounced';
  code: number;
  response: string;
  refusedCopies?: RefusedCopy[];
  acceptedCopies?: string[];
}

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
   * envelope names the bcc ones). The status is the recipient's. nodemailer sends the message
   * once the relay accepted any of the envelope's recipients at RCPT TO, so a recipient refused
   * there is the message's bounce or deferral while the copies accepted were sent all the same
   * (`acceptedCopies`); only when every recipient is refused, or DATA is, is nothing sent.
   */
  async send(from: string, to: string, raw: Buffer, copies: string[] = []): Promise<DeliveryOutcome> {
    try {
      const info = (await this.transport.sendMail({ envelope: { from, to: [to, ...copies] }, raw })) as {
        response?: string;
        rejectedErrors?: Array<SmtpError & { recipient?: string }>;
      };
      const refused = (info.rejectedErrors ?? []).map((e) => ({ address: e.recipient ?? '', ...replyOf(e) }));
      const refusedCopies = refused.filter((r) => r.address !== to);
      const refusedAddresses = new Set(refusedCopies.map((r) => r.address));
      const acceptedCopies = copies.filter((c) => !refusedAddresses.has(c));
      const aboutCopies = {
        ...(refusedCopies.length > 0 ? { refusedCopies } : {}),
        ...(acceptedCopies.length > 0 ? { acceptedCopies } : {}),
      };
      const recipientRefused = refused.find((r) => r.address === to);
      if (recipientRefused) return { ...outcomeOfRefusal(recipientRefused), ...aboutCopies };
      return { status: 'sent', code: codeOf(info.response, 250), response: info.response ?? '250', ...aboutCopies };
    } catch (error) {
      return outcomeOfRefusal(replyOf(error));
    }
  }

  close(): void {
    this.transport.close();
  }
}
