import { SMTPServer } from 'smtp-server';
import type { Logger } from '@postbus/logger';
import { collectMessageHead } from '@postbus/smtp';

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
export interface InboundLimits {
  /** Connections open at once, from everywhere. */
  connections: number;
  /** Connections open at once from one network: an IPv4 /24 or an IPv6 /64 (networkOf). */
  connectionsPerNetwork: number;
  /** Connections one network may open per minute. */
  connectionsPerMinute: number;
  /** SMTP commands on one connection (a NOOP loop holds a connection for nothing). */
  commandsPerConnection: number;
  /** Mail transactions (MAIL FROM) on one connection. */
  transactionsPerConnection: number;
  /** Recipients of one transaction. */
  recipientsPerTransaction: number;
  /** How long one connection may stay open, however busy. */
  connectionLifetimeMs: number;
}
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

interface SmtpReply extends Error {
  responseCode: number;
}

const reply = (responseCode: number, message: string): SmtpReply => Object.assign(new Error(message), { responseCode });

/** Counts connections per network in fixed one-minute windows; the map is emptied every window. */
export class ConnectionBudget {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(network: string): boolean {
    const window = Math.floor(this.now() / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(network) ?? 0) + 1;
    this.counts.set(network, count);
    return count <= this.perMinute;
  }
}

/**
 * The network an address is counted in: its /24 for IPv4 (an IPv4-mapped IPv6 address too), its
 * /64 for IPv6, where one host is given a whole /64 and could otherwise take a new address per
 * connection.
 */
export function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+)\.\d+$/i.exec(address);
  const v4 = mapped?.[1] ?? /^(\d+\.\d+\.\d+)\.\d+$/.exec(address)?.[1];
  if (v4) return `${v4}.0/24`;
  const [head = '', tail] = address.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** smtp-server's connection: its command handler is not public API, and the command limit wraps it. */
type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never;

/**
 * The MX of the return-path domains. It takes mail only for domains it knows (550 for any other:
 * it is no relay), and answers 250 only once the mail is stored for good, so a mail it accepted
 * is never lost; reading it comes later, off the SMTP path. A storage failure is a 451: the
 * sending MTA keeps the mail and tries again. What one stranger may hold of it is bounded
 * (InboundLimits), and of each mail only its head is ever held in memory.
 */
export function createInboundSmtpServer(options: InboundSmtpOptions): SMTPServer {
  const { logger, limits } = options;
  const budget = new ConnectionBudget(limits.connectionsPerMinute, options.now);
  /** Connections open per network, and each open connection's network and lifetime timer. */
  const openPerNetwork = new Map<string, number>();
  const open = new Map<string, { network: string; timer: NodeJS.Timeout }>();
  const refuse = (network: string, why: string, callback: (error?: Error) => void) => {
    logger.warn(`inbound connection refused: ${why}`, { network });
    callback(reply(421, `4.7.0 ${why}, try again later`));
  };
  const connectionOf = (id: string): Connection | undefined => [...server.connections].find((c) => c.id === id);

  /** Counts a connection's commands: past the limit it is closed with a 421 (smtp-server has no per-command hook). */
  const countCommands = (connection: Connection) => {
    const handle = connection._onCommand.bind(connection);
    let commands = 0;
    connection._onCommand = (command, callback) => {
      if (++commands <= limits.commandsPerConnection) return handle(command, callback);
      connection.send(421, '4.7.0 Too many commands on one connection, closing');
      callback?.();
    };
  };

  const server: SMTPServer = new SMTPServer({
    name: options.hostname,
    banner: 'Postbus inbound',
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    hideSTARTTLS: !options.tls,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    // A PTR lookup per connection is a DNS query an attacker controls the timing of.
    disableReverseLookup: true,
    size: options.maxMessageBytes,
    maxClients: limits.connections,
    maxRecipients: limits.recipientsPerTransaction,
    logger: false,
    closeTimeout: 5_000,

    onConnect(session, callback) {
      const network = networkOf(session.remoteAddress);
      if (!budget.take(network)) return refuse(network, 'Too many connections from your network', callback);
      const already = openPerNetwork.get(network) ?? 0;
      if (already >= limits.connectionsPerNetwork) return refuse(network, 'Too many open connections from your network', callback);
      const connection = connectionOf(session.id);
      if (!connection) return callback(); // closed meanwhile
      openPerNetwork.set(network, already + 1);
      const timer = setTimeout(() => connection.send(421, '4.4.2 Connection open too long, closing'), limits.connectionLifetimeMs);
      timer.unref();
      open.set(session.id, { network, timer });
      countCommands(connection);
      callback();
    },

    onClose(session) {
      const opened = open.get(session.id);
      if (!opened) return;
      open.delete(session.id);
      clearTimeout(opened.timer);
      const left = (openPerNetwork.get(opened.network) ?? 1) - 1;
      if (left > 0) openPerNetwork.set(opened.network, left);
      else openPerNetwork.delete(opened.network);
    },

    onMailFrom(_address, session, callback) {
      if (session.transaction > limits.transactionsPerConnection)
        return callback(reply(421, '4.7.0 Too many messages on one connection, closing'));
      callback();
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
      collectMessageHead(stream, options.keptBytes)
        .then(async ({ head, bytes }) => {
          if (stream.sizeExceeded || bytes > options.maxMessageBytes)
            throw reply(552, `5.3.4 Message exceeds the maximum size of ${options.maxMessageBytes} bytes`);
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
          if ((error as SmtpReply).responseCode) return callback(error as SmtpReply);
          logger.error('inbound mail not stored; the sender will retry', { error: (error as Error).message });
          callback(reply(451, '4.3.0 Temporary failure storing the message, try again later'));
        });
    },
  });
  return server;
}
