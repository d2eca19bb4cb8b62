import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PROJECT_ID = '0123456789abcdef01234567';
export const API_KEY = 'pb_full_0123456789abcdefghijklmnop';
/** The key the gateway answers as locked out (429): too many failures from the address. */
export const LOCKED_KEY = 'pb_full_locked';
/** The domain the project may send from. */
export const SENDER_DOMAIN = 'shop.example';

/** A request the fake gateway took. */
export interface GatewayCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | null;
}

/** How the content send answers: as the gateway does, or as one that is down, slow, limited or refusing. */
export type SendMode = 'accept' | 'unavailable' | 'reset' | 'rate-limited' | 'slow';

const problem = (status: number, slug: string, detail: string, errors?: Array<{ pointer: string; message: string }>) =>
  JSON.stringify({ type: `/problems/${slug}`, title: slug, status, detail, ...(errors ? { errors } : {}) });

/**
 * A real HTTP server standing in for the gateway, speaking its contract for SMTP submission:
 * `GET /v1/auth/whoami` with HTTP Basic `<projectId>:<apiKey>` and `POST
 * /v1/projects/{projectId}/emails/send` with a content send, answering 200 only for a From on
 * SENDER_DOMAIN (else the 422 `from-email-not-on-sender-domain`), and a 422 for a send without a
 * subject. It records every call.
 */
export async function startFakeGateway(): Promise<{
  url: string;
  calls: GatewayCall[];
  sends: () => GatewayCall[];
  mode: { send: SendMode };
  close(): Promise<void>;
}> {
  const calls: GatewayCall[] = [];
  const mode: { send: SendMode } = { send: 'accept' };
  let messages = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: GatewayCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
      };
      calls.push(call);
      const json = (status: number, body: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': status === 200 ? 'application/json' : 'application/problem+json', ...headers });
        res.end(body);
      };
      const [user, key] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':');
      if (key === LOCKED_KEY)
        return json(429, problem(429, 'too-many-requests', 'Too many failed authentications; retry after 30 s.'), { 'retry-after': '30' });
      if (user !== PROJECT_ID || key !== API_KEY) return json(401, problem(401, 'unauthorized', 'Invalid credentials.'));
      if (call.method === 'GET' && call.path === '/v1/auth/whoami')
        return json(200, JSON.stringify({ client_id: 'cl_fake', key_id: 'key_fake', scope: 'full', project_id: PROJECT_ID }));
      if (call.method !== 'POST' || call.path !== `/v1/projects/${PROJECT_ID}/emails/send`)
        return json(404, problem(404, 'not-found', 'No route.'));
      if (mode.send === 'reset') return req.socket.destroy();
      if (mode.send === 'unavailable')
        return json(503, problem(503, 'unavailable', 'The bus did not acknowledge in time.'), { 'retry-after': '1' });
      if (mode.send === 'rate-limited')
        return json(429, problem(429, 'rate-limited', 'This client may send 10 messages a second; retry after 2 s.'), {
          'retry-after': '2',
        });
      if (mode.send === 'slow') {
        const late = setTimeout(
          () => json(200, JSON.stringify({ status: 'accepted', request_id: 'req_slow', message_id: 'msg_slow' })),
          5_000,
        );
        res.once('close', () => clearTimeout(late));
        return;
      }
      const from = typeof call.body?.['from'] === 'string' ? call.body['from'] : `hello@${SENDER_DOMAIN}`;
      if (!from.replace(/>$/, '').endsWith(`@${SENDER_DOMAIN}`))
        return json(
          422,
          problem(
            422,
            'from-email-not-on-sender-domain',
            `from must be an address at ${SENDER_DOMAIN}, the project's verified sender domain.`,
            [{ pointer: '/from', message: `not on ${SENDER_DOMAIN}` }],
          ),
        );
      messages++;
      return json(200, JSON.stringify({ status: 'accepted', request_id: `req_${messages}`, message_id: `msg_${messages}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    sends: () => calls.filter((c) => c.method === 'POST'),
    mode,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
