import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { Logger } from '@postbus/logger';

/** An error an smtp-server handler passes to its callback: the reply the client gets. */
export interface SmtpReply extends Error {
  responseCode: number;
}

/** The reply `responseCode message` (e.g. `smtpReply(451, '4.3.0 Try again later')`), for an smtp-server callback. */
export const smtpReply = (responseCode: number, message: string): SmtpReply => Object.assign(new Error(message), { responseCode });

/** Whether an error is a reply made by smtpReply (or carries a reply code as one does). */
export const isSmtpReply = (error: unknown): error is SmtpReply =>
  error instanceof Error && typeof (error as Partial<SmtpReply>).responseCode === 'number';

/** What one client may hold of an SMTP server: each refusal is a 421 or 452, which SMTP clients retry later. */
export interface ConnectionLimits {
  /** Connections open at once, from everywhere (across every server the limits are shared by). */
  connections: number;
  /** Connections open at once from one network: an IPv4 /24 or an IPv6 /64 (networkOf). */
  connectionsPerNetwork: number;
  /** Connections one network may open per minute. */
  connectionsPerMinute: number;
  /** SMTP commands on one connection (a NOOP loop holds a connection for nothing). */
  commandsPerConnection: number;
  /** Mail transactions (MAIL FROM) on one connection. */
  transactionsPerConnection: number;
  /** Recipients of one transaction: more get 452. */
  recipientsPerTransaction: number;
  /** How long one connection may stay open, however busy. */
  connectionLifetimeMs: number;
}

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

type Callback = (error?: Error | null) => void;

export interface ConnectionGuardOptions {
  limits: ConnectionLimits;
  /** Names the server in the log lines of its refusals, e.g. `inbound`. */
  label: string;
  logger: Logger;
  now?: () => number;
}

/**
 * What one client may hold of one or more SMTP servers (ConnectionLimits), enforced on each
 * server made with `guardedSmtpServer`: connections at once in all and per network, connections
 * per network and minute, commands, mails and lifetime of one connection, recipients of one mail.
 * Servers that share a guard share its counts (the submission service's STARTTLS and implicit TLS
 * ports are one budget).
 */
export class ConnectionGuard {
  private readonly budget: ConnectionBudget;
  /** Connections open per network, and each open connection's network and lifetime timer. */
  private readonly openPerNetwork = new Map<string, number>();
  private readonly open = new Map<string, { network: string; timer: NodeJS.Timeout }>();

  constructor(private readonly options: ConnectionGuardOptions) {
    this.budget = new ConnectionBudget(options.limits.connectionsPerMinute, options.now);
  }

  get limits(): ConnectionLimits {
    return this.options.limits;
  }

  /** Connections open now, across the servers of this guard. */
  get openConnections(): number {
    return this.open.size;
  }

  /**
   * onConnect: admits the connection (its lifetime and commands counted from now), or refuses it
   * with a 421 through `callback`; false when it answered `callback` itself.
   */
  admit(server: SMTPServer, session: SMTPServerSession, callback: Callback): boolean {
    const { limits } = this.options;
    const network = networkOf(session.remoteAddress);
    if (!this.budget.take(network)) return this.refuse(network, 'Too many connections from your network', callback);
    if ((this.openPerNetwork.get(network) ?? 0) >= limits.connectionsPerNetwork)
      return this.refuse(network, 'Too many open connections from your network', callback);
    if (this.open.size >= limits.connections) return this.refuse(network, 'Too many connections', callback);
    const connection = [...server.connections].find((c) => c.id === session.id);
    if (!connection) {
      callback(); // closed meanwhile
      return false;
    }
    this.openPerNetwork.set(network, (this.openPerNetwork.get(network) ?? 0) + 1);
    const timer = setTimeout(() => connection.send(421, '4.4.2 Connection open too long, closing'), limits.connectionLifetimeMs);
    timer.unref();
    this.open.set(session.id, { network, timer });
    this.countCommands(connection);
    return true;
  }

  /** onClose: forgets the connection. */
  release(session: SMTPServerSession): void {
    const opened = this.open.get(session.id);
    if (!opened) return;
    this.open.delete(session.id);
    clearTimeout(opened.timer);
    const left = (this.openPerNetwork.get(opened.network) ?? 1) - 1;
    if (left > 0) this.openPerNetwork.set(opened.network, left);
    else this.openPerNetwork.delete(opened.network);
  }

  /** onMailFrom: a 421 for a mail past the connection's transactions, else nothing. */
  transactionRefusal(session: SMTPServerSession): SmtpReply | undefined {
    return session.transaction > this.options.limits.transactionsPerConnection
      ? smtpReply(421, '4.7.0 Too many messages on one connection, closing')
      : undefined;
  }

  private refuse(network: string, why: string, callback: Callback): false {
    this.options.logger.warn(`${this.options.label} connection refused: ${why}`, { network });
    callback(smtpReply(421, `4.7.0 ${why}, try again later`));
    return false;
  }

  /** Counts a connection's commands: past the limit it is closed with a 421 (smtp-server has no per-command hook). */
  private countCommands(connection: Connection): void {
    const handle = connection._onCommand.bind(connection);
    const { commandsPerConnection } = this.options.limits;
    let commands = 0;
    connection._onCommand = (command, callback) => {
      if (++commands <= commandsPerConnection) return handle(command, callback);
      connection.send(421, '4.7.0 Too many commands on one connection, closing');
      callback?.();
    };
  }
}

/**
 * An smtp-server under `guard`'s limits: its onConnect, onClose and onMailFrom run after the
 * guard's own checks (a connection or mail the guard refuses never reaches them), and smtp-server's
 * own caps (maxClients, maxRecipients: 452 past it) are set from the limits.
 */
export function guardedSmtpServer(guard: ConnectionGuard, options: SMTPServerOptions): SMTPServer {
  const server: SMTPServer = new SMTPServer({
    ...options,
    maxClients: guard.limits.connections,
    maxRecipients: guard.limits.recipientsPerTransaction,
    onConnect(session, callback) {
      if (!guard.admit(server, session, callback)) return;
      if (options.onConnect) options.onConnect.call(server, session, callback);
      else callback();
    },
    onClose(session, callback) {
      guard.release(session);
      if (options.onClose) options.onClose.call(server, session, callback);
      else callback();
    },
    onMailFrom(address, session, callback) {
      const refusal = guard.transactionRefusal(session);
      if (refusal) return callback(refusal);
      if (options.onMailFrom) options.onMailFrom.call(server, address, session, callback);
      else callback();
    },
  });
  return server;
}
