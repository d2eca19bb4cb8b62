import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import type { Probe } from '../../domain/ports';
import { reason, verdict } from './probe';

interface Reply {
  code: number;
  /** The text of its last line. */
  text: string;
  /** The text of every line (an EHLO reply's extensions). */
  lines: string[];
}

/** Reads SMTP replies (multi-line ones end with "NNN text") from one socket, then from the TLS socket that takes it over. */
class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private readonly waiting: Array<(reply: Reply) => void> = [];
  private readonly ready: Reply[] = [];
  private socket: Socket | undefined;
  private readonly onData = (chunk: Buffer) => this.take(chunk.toString('latin1'));

  constructor(socket: Socket) {
    this.read(socket);
  }

  /** Reads from `socket` from now on (after STARTTLS: the TLS socket over the same connection). */
  read(socket: Socket): void {
    this.socket?.off('data', this.onData);
    this.socket = socket;
    this.buffer = '';
    socket.on('data', this.onData);
  }

  next(): Promise<Reply> {
    const reply = this.ready.shift();
    return reply ? Promise.resolve(reply) : new Promise((resolve) => this.waiting.push(resolve));
  }

  private take(text: string): void {
    this.buffer += text;
    let end: number;
    while ((end = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      if (!/^\d{3}([ -]|$)/.test(line)) continue;
      this.lines.push(line.slice(4));
      if (line[3] === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), text: line.slice(4), lines: this.lines };
      this.lines = [];
      const waiter = this.waiting.shift();
      if (waiter) waiter(reply);
      else this.ready.push(reply);
    }
  }
}

const offers = (ehlo: Reply, extension: string) => ehlo.lines.some((line) => line.toUpperCase().split(' ')[0] === extension);

/** Why its certificate would be refused by every client, whatever it trusts: not yet or no longer valid. */
function certificateProblem(socket: TLSSocket, now: Date): string | undefined {
  const certificate = socket.getPeerCertificate();
  if (!certificate?.valid_to) return 'offers no certificate';
  const validTo = new Date(certificate.valid_to);
  const validFrom = new Date(certificate.valid_from);
  if (validTo < now) return `offers a certificate that expired on ${validTo.toISOString()}`;
  if (validFrom > now) return `offers a certificate valid only from ${validFrom.toISOString()}`;
  return undefined;
}

/**
 * Opens an SMTP session and says goodbye: the greeting, EHLO, and what a client needs next. The
 * relay (`what` "relay"): it accepts a session. A submission server (`submission`): over TLS
 * (STARTTLS on an smtp:// URL, from the start on smtps://) with a certificate in its validity
 * period, and offering AUTH there, as an app's mailer needs it to log in. Its certificate's chain is
 * not judged (a self-signed one is the development default).
 */
export function smtpProbe(options: {
  componentId: string;
  /** What the details name: "relay", "submission". */
  what: string;
  smtpUrl: string;
  /** Check the session a submitting client opens: TLS, a valid certificate and AUTH. */
  submission?: boolean;
  intervalMs: number;
  timeoutMs: number;
}): Probe {
  const { componentId, what } = options;
  const url = new URL(options.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (secure ? 465 : 25));
  // SNI names a host, never an address.
  const servername = isIP(host) ? undefined : host;
  return {
    name: `smtp ${what}`,
    componentIds: [componentId],
    intervalMs: options.intervalMs,
    async run() {
      const started = performance.now();
      const sockets: Socket[] = [];
      let fail: (error: Error) => void = () => undefined;
      const failed = new Promise<never>((_, reject) => (fail = reject));
      /** Each socket of the session (the connection, then the TLS socket STARTTLS puts over it) ends it when it fails. */
      const watch = <T extends Socket>(socket: T): T => {
        sockets.push(socket);
        socket.setTimeout(options.timeoutMs);
        socket.once('error', fail);
        socket.once('timeout', () => fail(new Error('timed out')));
        socket.once('close', () => fail(new Error('connection closed')));
        return socket;
      };
      const first = watch(secure ? connectTls({ host, port, servername, rejectUnauthorized: false }) : connectTcp({ host, port }));
      const replies = new ReplyReader(first);
      const say = (socket: Socket, command: string) => socket.write(`${command}\r\n`);
      const bad = (detail: string) => verdict(componentId, 'major_outage', `${what} ${detail}`, performance.now() - started);

      const exchange = async () => {
        const greeting = await replies.next();
        if (greeting.code !== 220) return verdict(componentId, 'major_outage', `${what} greeted with ${greeting.code}`);
        let socket = first;
        say(socket, 'EHLO status.postbus.local');
        let ehlo = await replies.next();
        if (ehlo.code !== 250)
          return verdict(
            componentId,
            ehlo.code >= 500 ? 'major_outage' : 'partial_outage',
            `EHLO answered ${ehlo.code}`,
            performance.now() - started,
          );
        if (!options.submission) {
          say(socket, 'QUIT');
          return verdict(componentId, 'operational', `${what} accepts EHLO`, performance.now() - started);
        }
        if (!secure) {
          if (!offers(ehlo, 'STARTTLS')) return bad('offers no STARTTLS: no client can log in');
          say(socket, 'STARTTLS');
          const go = await replies.next();
          if (go.code !== 220) return bad(`answered STARTTLS with ${go.code}`);
          const tls = watch(connectTls({ socket, servername, rejectUnauthorized: false }));
          replies.read(tls);
          await new Promise<void>((resolve) => tls.once('secureConnect', resolve));
          socket = tls;
          say(socket, 'EHLO status.postbus.local');
          ehlo = await replies.next();
          if (ehlo.code !== 250) return bad(`answered EHLO over TLS with ${ehlo.code}`);
        }
        const problem = certificateProblem(socket as TLSSocket, new Date());
        if (problem) return bad(problem);
        if (!offers(ehlo, 'AUTH')) return bad('offers no AUTH over TLS: no client can log in');
        say(socket, 'QUIT');
        return verdict(componentId, 'operational', `${what} accepts TLS and AUTH`, performance.now() - started);
      };
      try {
        return [await Promise.race([exchange(), failed])];
      } catch (error) {
        return [verdict(componentId, 'major_outage', `${what} unreachable: ${reason(error)}`)];
      } finally {
        failed.catch(() => undefined);
        for (const socket of sockets.reverse()) socket.destroy();
      }
    },
  };
}
