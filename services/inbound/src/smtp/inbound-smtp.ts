import { SMTPServer } from 'smtp-server';
import type { Logger } from '@postbus/logger';
import { collectMessage } from '@postbus/smtp';

/** A mail as the MX took it: its bytes and envelope, before anything reads it. */
export interface InboundMail {
  raw: Buffer;
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string;
  receivedAt: string;
}

export interface InboundSmtpOptions {
  /** The name in the greeting and in Received lines. */
  hostname: string;
  /** True for a domain this MX takes mail for: a return-path domain it knows. */
  acceptsDomain(domain: string): boolean | Promise<boolean>;
  /** Resolves once the mail is stored for good (on Kafka with acks=all): the 250 waits for it. */
  record(mail: InboundMail): Promise<void>;
  maxMessageBytes: number;
  /** Connections one remote address may open per minute; more get 421. */
  connectionsPerMinute: number;
  /** STARTTLS is offered only with a certificate. */
  tls?: { key: Buffer; cert: Buffer };
  logger: Logger;
  now?: () => number;
}

interface SmtpReply extends Error {
  responseCode: number;
}

const reply = (responseCode: number, message: string): SmtpReply => Object.assign(new Error(message), { responseCode });

/** Counts connections per remote address in fixed one-minute windows; the map is emptied every window. */
export class ConnectionBudget {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(address: string): boolean {
    const window = Math.floor(this.now() / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, count);
    return count <= this.perMinute;
  }
}

/**
 * The MX of the return-path domains. It takes mail only for domains it knows (550 for any other:
 * it is no relay), and answers 250 only once the mail is stored for good, so a mail it accepted
 * is never lost; reading it comes later, off the SMTP path. A storage failure is a 451: the
 * sending MTA keeps the mail and tries again.
 */
export function createInboundSmtpServer(options: InboundSmtpOptions): SMTPServer {
  const budget = new ConnectionBudget(options.connectionsPerMinute, options.now);
  const { logger } = options;
  return new SMTPServer({
    name: options.hostname,
    banner: 'Postbus inbound',
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    hideSTARTTLS: !options.tls,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    // A PTR lookup per connection is a DNS query an attacker controls the timing of.
    disableReverseLookup: true,
    size: options.maxMessageBytes,
    logger: false,
    closeTimeout: 5_000,

    onConnect(session, callback) {
      if (budget.take(session.remoteAddress)) return callback();
      logger.warn('inbound connection refused: rate limit', { remoteAddress: session.remoteAddress });
      callback(reply(421, '4.7.0 Too many connections from your address, try again later'));
    },

    onRcptTo(address, _session, callback) {
      const at = address.address.lastIndexOf('@');
      const domain = at > 0 ? address.address.slice(at + 1).toLowerCase() : '';
      Promise.resolve(domain !== '' && options.acceptsDomain(domain))
        .then((known) =>
          callback(known ? null : reply(550, '5.7.1 Relaying denied: this server takes mail for its return-path domains only')),
        )
        .catch((error: unknown) => {
          // Not knowing is not a refusal: a 550 would make the sender drop a real report for good.
          logger.error('inbound recipient not checked; the sender will retry', { error: (error as Error).message });
          callback(reply(451, '4.3.0 Temporary failure, try again later'));
        });
    },

    onData(stream, session, callback) {
      collectMessage(stream)
        .then(async (raw) => {
          if (stream.sizeExceeded) throw reply(552, `5.3.4 Message exceeds the maximum size of ${options.maxMessageBytes} bytes`);
          const { mailFrom, rcptTo } = session.envelope;
          await options.record({
            raw,
            mailFrom: mailFrom ? mailFrom.address : '',
            rcptTo: rcptTo.map((r) => r.address),
            remoteAddress: session.remoteAddress,
            receivedAt: new Date(options.now?.() ?? Date.now()).toISOString(),
          });
          callback(null, 'OK: accepted');
        })
        .catch((error: unknown) => {
          if ((error as SmtpReply).responseCode) return callback(error as SmtpReply);
          logger.error('inbound mail not stored; the sender will retry', { error: (error as Error).message });
          callback(reply(451, '4.3.0 Temporary failure storing the message, try again later'));
        });
    },
  });
}
