import type { SMTPServer } from 'smtp-server';
import type { Logger } from '@postbus/logger';
import { collectMessageHead, ConnectionGuard, guardedSmtpServer, isSmtpReply, smtpReply, type ConnectionLimits } from '@postbus/smtp';

/** A mail as the MX took it: the head it keeps, its envelope, before anything reads it. */
export interface InboundMail {
  /** The first `keptBytes` of the mail. */
  raw: Buffer;
  /** Whether the mail had more than `raw`. */
  truncated: boolean;
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string;
  receivedAt: string;
}

/** What one stranger may hold of the MX: each refusal is a 421 or 452 a sending MTA retries later. */
export type InboundLimits = ConnectionLimits;

export interface InboundSmtpOptions {
  /** The name in the greeting and in Received lines. */
  hostname: string;
  /** True for a domain this MX takes mail for: a return-path domain it knows. */
  acceptsDomain(domain: string): boolean | Promise<boolean>;
  /** Resolves once the mail is stored for good (on Kafka with acks=all), or dropped: the 250 waits for it. */
  record(mail: InboundMail): Promise<void>;
  /** The largest mail taken: larger ones are heard out, counted, and refused with 552. */
  maxMessageBytes: number;
  /** The bytes of each mail held and kept (INBOUND_KEPT_BYTES): what is past them is counted, never held. */
  keptBytes: number;
  limits: InboundLimits;
  /** STARTTLS is offered only with a certificate. */
  tls?: { key: Buffer; cert: Buffer };
  logger: Logger;
  now?: () => number;
}

/**
 * The MX of the return-path domains. It takes mail only for domains it knows (550 for any other:
 * it is no relay), and answers 250 only once the mail is stored for good, so a mail it accepted
 * is never lost; reading it comes later, off the SMTP path. A storage failure is a 451: the
 * sending MTA keeps the mail and tries again. What one stranger may hold of it is bounded
 * (InboundLimits), and of each mail only its head is ever held in memory.
 */
export function createInboundSmtpServer(options: InboundSmtpOptions): SMTPServer {
  const { logger, limits } = options;
  const guard = new ConnectionGuard({ limits, label: 'inbound', logger, ...(options.now ? { now: options.now } : {}) });
  return guardedSmtpServer(guard, {
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

    onRcptTo(address, _session, callback) {
      const at = address.address.lastIndexOf('@');
      const domain = at > 0 ? address.address.slice(at + 1).toLowerCase() : '';
      Promise.resolve(domain !== '' && options.acceptsDomain(domain))
        .then((known) =>
          callback(known ? null : smtpReply(550, '5.7.1 Relaying denied: this server takes mail for its return-path domains only')),
        )
        .catch((error: unknown) => {
          // Not knowing is not a refusal: a 550 would make the sender drop a real report for good.
          logger.error('inbound recipient not checked; the sender will retry', { error: (error as Error).message });
          callback(smtpReply(451, '4.3.0 Temporary failure, try again later'));
        });
    },

    onData(stream, session, callback) {
      collectMessageHead(stream, options.keptBytes)
        .then(async ({ head, bytes }) => {
          if (stream.sizeExceeded || bytes > options.maxMessageBytes)
            throw smtpReply(552, `5.3.4 Message exceeds the maximum size of ${options.maxMessageBytes} bytes`);
          const { mailFrom, rcptTo } = session.envelope;
          await options.record({
            raw: head,
            truncated: bytes > head.length,
            mailFrom: mailFrom ? mailFrom.address : '',
            rcptTo: rcptTo.map((r) => r.address),
            remoteAddress: session.remoteAddress,
            receivedAt: new Date(options.now?.() ?? Date.now()).toISOString(),
          });
          callback(null, 'OK: accepted');
        })
        .catch((error: unknown) => {
          if (isSmtpReply(error)) return callback(error);
          logger.error('inbound mail not stored; the sender will retry', { error: (error as Error).message });
          callback(smtpReply(451, '4.3.0 Temporary failure storing the message, try again later'));
        });
    },
  });
}
