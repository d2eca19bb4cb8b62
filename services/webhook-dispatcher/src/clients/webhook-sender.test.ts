import { createServer } from 'node:http';
import { lookup } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { AddressPolicy } from '@postbus/http';
import { newSecret } from '../model/endpoint.repository';
import { send, signedHeaders } from './webhook-sender';

describe('signedHeaders', () => {
  it('carries one Standard Webhooks signature per secret, each verifiable on its own', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const body = JSON.stringify({ type: 'message.sent', timestamp: new Date().toISOString(), data: { message_id: 'msg_1' } });
    const headers = signedHeaders('msg_abc', body, [current, previous]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ type: 'message.sent' });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ type: 'message.sent' });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });
});

describe('send', () => {
  it('reads only the first kilobyte, does not follow redirects, and reports a refused connection', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/big') res.end('x'.repeat(100_000));
      else res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const base = {
      webhookId: 'msg_1',
      attempt: 1,
      payload: '{}',
      secrets: [newSecret()],
      timeoutMs: 2_000,
      lookup,
      connectRefusal: () => null,
    };
    try {
      const big = await send({ ...base, url: `http://127.0.0.1:${port}/big` });
      expect(big).toMatchObject({ statusCode: 200, error: null });
      expect(big.response!.length).toBeLessThanOrEqual(1024);
      expect((await send({ ...base, url: `http://127.0.0.1:${port}/redirect` })).statusCode).toBe(302);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    const refused = await send({ ...base, url: `http://127.0.0.1:1/nobody-listens` });
    expect(refused.statusCode).toBeNull();
    expect(refused.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses, without connecting, an address written in the URL that the policy in force refuses (never looked up)', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('ok')).on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    // Saved while the operator admitted this port; admitted no more.
    const policy = new AddressPolicy([]);
    const base = { webhookId: 'msg_1', attempt: 1, payload: '{}', secrets: [newSecret()], timeoutMs: 2_000, lookup: policy.lookup };
    try {
      for (const host of ['127.0.0.1', '[::127.0.0.1]', '[::ffff:127.0.0.1]', '2130706433']) {
        const result = await send({ ...base, connectRefusal: policy.connectRefusal, url: `http://${host}:${port}/hook` });
        expect(result).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: .*loopback/) });
      }
      expect(connections).toBe(0);
      const admitted = new AddressPolicy([`127.0.0.1:${port}`]);
      const ok = await send({ ...base, connectRefusal: admitted.connectRefusal, url: `http://127.0.0.1:${port}/hook` });
      expect(ok.statusCode).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
