import { createServer, type Server } from 'node:http';
import { freePort } from '@postbus/testing';

export interface Received {
  id: string;
  attempt: number;
  /** When the request arrived (Date.now()). */
  at: number;
  status?: number;
  headers: Record<string, string>;
  body: string;
}

/** A real HTTP receiver on loopback; `answer` decides each response's status. */
export async function startReceiver(answer: (r: Received) => number = () => 200, port?: number) {
  const received: Received[] = [];
  const chosen = port ?? (await freePort());
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const r: Received = {
        id: headers['webhook-id'] ?? '',
        attempt: Number(headers['postbus-attempt']),
        at: Date.now(),
        headers,
        body: Buffer.concat(chunks).toString(),
      };
      received.push(r);
      r.status = answer(r);
      res.writeHead(r.status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(chosen, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${chosen}/hooks`,
    port: chosen,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
