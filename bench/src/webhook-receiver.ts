/**
 * The webhook benchmark's receiver, forked by webhooks.bench.ts into a process of its own: bare node:http on
 * loopback answering every POST 200 "ok", noting each request's `webhook-id`, the `data.message_id` of its body
 * and when it arrived. The same receiver takes the direct POSTs and the dispatcher's deliveries.
 *   node bench/dist/webhook-receiver.js PORT
 * Control over IPC: {type: 'count'} answers {type: 'count', distinct, requests}; {type: 'report'} answers
 * {type: 'report', ...ReceiverReport}; {type: 'reset'} forgets everything and answers {type: 'reset'}.
 * It answers {type: 'listening', port} once it listens.
 */
import { createServer } from 'node:http';
import { nowMs } from './webhook-events';

export interface ReceivedSample {
  headers: Record<string, string>;
  body: string;
}

export interface ReceiverReport {
  /** Distinct webhook-ids. */
  distinct: number;
  requests: number;
  /** Requests carrying a webhook-id seen before (retries, redeliveries). */
  duplicates: number;
  /** Requests without a webhook-id header. */
  unidentified: number;
  /** [message_id, webhook-id, first arrival in epoch ms] of each distinct webhook-id. */
  arrivals: Array<[string, string, number]>;
  /** The first requests in full, for the signature check. */
  samples: ReceivedSample[];
  cpuMs: { user: number; system: number };
}

export type ReceiverRequest = { type: 'count' } | { type: 'report' } | { type: 'reset' };
export type ReceiverAnswer =
  | { type: 'listening'; port: number }
  | { type: 'count'; distinct: number; requests: number }
  | ({ type: 'report' } & ReceiverReport)
  | { type: 'reset' };

const SAMPLES = 5;
const MESSAGE_ID = /"message_id":"([^"]*)"/;

function main(port: number): void {
  let seen = new Map<string, [string, string, number]>();
  let requests = 0;
  let duplicates = 0;
  let unidentified = 0;
  let samples: ReceivedSample[] = [];
  let cpuSince = process.cpuUsage();

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = nowMs();
      requests++;
      const id = req.headers['webhook-id'];
      if (typeof id !== 'string') unidentified++;
      else if (seen.has(id)) duplicates++;
      else {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.set(id, [MESSAGE_ID.exec(body)?.[1] ?? '', id, at]);
        if (samples.length < SAMPLES) {
          const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
          samples.push({ headers, body });
        }
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;

  const answer = (message: ReceiverAnswer) => process.send!(message);
  process.on('message', (request: ReceiverRequest) => {
    switch (request.type) {
      case 'count':
        answer({ type: 'count', distinct: seen.size, requests });
        break;
      case 'report': {
        const cpu = process.cpuUsage(cpuSince);
        answer({
          type: 'report',
          distinct: seen.size,
          requests,
          duplicates,
          unidentified,
          arrivals: [...seen.values()],
          samples,
          cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
        });
        break;
      }
      case 'reset':
        seen = new Map();
        requests = duplicates = unidentified = 0;
        samples = [];
        cpuSince = process.cpuUsage();
        answer({ type: 'reset' });
        break;
    }
  });
  process.on('disconnect', () => server.close(() => process.exit(0)));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  server.listen(port, '127.0.0.1', () => answer({ type: 'listening', port }));
}

if (require.main === module) {
  if (!process.send) {
    console.error('webhook-receiver.js is forked by webhooks.bench.js (it needs an IPC channel)');
    process.exit(2);
  }
  main(Number(process.argv[2] ?? 0));
}
