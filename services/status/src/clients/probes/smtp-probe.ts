import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { Probe } from '../../domain/ports';
import { reason, verdict } from './probe';

/** Reads SMTP replies (multi-line ones end with "NNN text"). */
function replies(socket: Socket): () => Promise<{ code: number; text: string }> {
  let buffer = '';
  const waiting: Array<(reply: { code: number; text: string }) => void> = [];
  const ready: Array<{ code: number; text: string }> = [];
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    let end: number;
    while ((end = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) {
        const reply = { code: Number(line.slice(0, 3)), text: line.slice(4) };
        const next = waiting.shift();
        if (next) next(reply);
        else ready.push(reply);
      }
    }
  });
  return () => {
    const reply = ready.shift();
    return reply ? Promise.resolve(reply) : new Promise((resolve) => waiting.push(resolve));
  };
}

/** Greets the relay (EHLO) and says goodbye: the relay answers and accepts a session. */
export function smtpProbe(options: { componentId: string; smtpUrl: string; intervalMs: number; timeoutMs: number }): Probe {
  const url = new URL(options.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname;
  const port = Number(url.port || (secure ? 465 : 25));
  return {
    name: 'smtp relay',
    componentIds: [options.componentId],
    intervalMs: options.intervalMs,
    async run() {
      const started = performance.now();
      const socket = secure ? connectTls({ host, port, servername: host }) : connectTcp({ host, port });
      socket.setTimeout(options.timeoutMs);
      const failed = new Promise<never>((_, reject) => {
        socket.once('error', reject);
        socket.once('timeout', () => reject(new Error('timed out')));
        socket.once('close', () => reject(new Error('connection closed')));
      });
      const next = replies(socket);
      const exchange = async () => {
        const greeting = await next();
        if (greeting.code !== 220) return verdict(options.componentId, 'major_outage', `relay greeted with ${greeting.code}`);
        socket.write('EHLO status.postbus.local\r\n');
        const ehlo = await next();
        socket.write('QUIT\r\n');
        const latency = performance.now() - started;
        if (ehlo.code !== 250)
          return verdict(options.componentId, ehlo.code >= 500 ? 'major_outage' : 'partial_outage', `EHLO answered ${ehlo.code}`, latency);
        return verdict(options.componentId, 'operational', 'relay accepts EHLO', latency);
      };
      try {
        return [await Promise.race([exchange(), failed])];
      } catch (error) {
        return [verdict(options.componentId, 'major_outage', `relay unreachable: ${reason(error)}`)];
      } finally {
        failed.catch(() => undefined);
        socket.destroy();
      }
    },
  };
}
