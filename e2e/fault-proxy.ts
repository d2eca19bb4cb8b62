import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy saw of one request it passed on (or refused). */
export interface ProxiedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** The status the caller got: the gateway's, or the injected fault's. */
  status: number;
  /** Whether the gateway saw the request (a fault after forwarding hides a real answer). */
  forwarded: boolean;
}

export interface FaultPlan {
  /** How many of the next requests fail. */
  count: number;
  status?: number;
  /**
   * `after-forward` (default): the gateway gets the request and answers, the caller gets the fault
   * instead — a lost response, the case an Idempotency-Key exists for. `before-forward`: the
   * gateway never sees it.
   */
  mode?: 'after-forward' | 'before-forward';
  retryAfterSeconds?: number;
}

export interface FaultProxy {
  url: string;
  failNext(plan: FaultPlan): void;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

const withDefaults = (asked: FaultPlan): Required<FaultPlan> => ({
  count: asked.count,
  status: asked.status ?? 503,
  mode: asked.mode ?? 'after-forward',
  retryAfterSeconds: asked.retryAfterSeconds ?? 0,
});

/**
 * An HTTP proxy in front of the gateway that can fail the next requests, so SDK tests see a
 * gateway answering 503 twice and then 200. Tests in other processes (PHPUnit) steer it over HTTP:
 * `POST /__fault {"count":2,"status":503}` plans faults, `GET /__fault/requests` lists what passed,
 * `DELETE /__fault/requests` forgets it. Listens on 127.0.0.1 only.
 */
export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  let plan: Required<FaultPlan> | null = null;
  const requests: ProxiedRequest[] = [];

  const takeFault = (): Required<FaultPlan> | null => {
    if (!plan || plan.count <= 0) return null;
    plan.count -= 1;
    return { ...plan };
  };

  const sendFault = (res: http.ServerResponse, fault: Required<FaultPlan>) => {
    res.writeHead(fault.status, {
      'content-type': 'application/problem+json',
      ...(fault.retryAfterSeconds > 0 ? { 'retry-after': String(fault.retryAfterSeconds) } : {}),
    });
    res.end(JSON.stringify({ type: '/problems/injected-fault', title: 'Injected by the test proxy', status: fault.status }));
  };

  const control = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'POST' && req.url === '/__fault') {
      const asked = JSON.parse(body.toString('utf8') || '{}') as FaultPlan;
      plan = withDefaults(asked);
      return json(200, plan);
    }
    if (req.method === 'GET' && req.url === '/__fault/requests') return json(200, requests);
    if (req.method === 'DELETE' && req.url === '/__fault/requests') {
      requests.length = 0;
      return json(200, []);
    }
    return json(404, { error: 'unknown control route' });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.startsWith('/__fault')) return control(req, body, res);
      const fault = takeFault();
      const record = (status: number, forwarded: boolean) =>
        requests.push({
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
          status,
          forwarded,
        });
      if (fault?.mode === 'before-forward') {
        record(fault.status, false);
        return sendFault(res, fault);
      }
      const upstream = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            if (fault) {
              record(fault.status, true);
              return sendFault(res, fault);
            }
            record(answer.statusCode ?? 502, true);
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(answerChunks));
          });
        },
      );
      upstream.on('error', () => {
        record(502, false);
        res.writeHead(502).end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    failNext(next) {
      plan = withDefaults(next);
    },
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
