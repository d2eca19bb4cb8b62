import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { readyzProbe } from './http-probes';
import { smtpProbe } from './smtp-probe';
import type { CheckResult } from '../../domain/model';

const listening = <T extends Server | TcpServer>(server: T): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));

describe('probes', () => {
  const servers: (Server | TcpServer)[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('a service that is not ready is an outage that names the failing dependency', async () => {
    let ready = false;
    const server = createHttpServer((_req, res) => {
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks: { database: true, bus: ready } }));
    });
    servers.push(server);
    const port = await listening(server);
    const probe = readyzProbe({
      componentId: 'sending.mailer',
      service: 'mailer',
      url: `http://127.0.0.1:${port}`,
      intervalMs: 1000,
      timeoutMs: 1000,
    });
    const [down] = (await probe.run()) as CheckResult[];
    expect(down).toMatchObject({ status: 'major_outage', detail: 'mailer not ready: bus not ready' });
    ready = true;
    const [up] = (await probe.run()) as CheckResult[];
    expect(up).toMatchObject({ status: 'operational' });
  });

  it('a service nobody answers for is an outage saying so', async () => {
    const probe = readyzProbe({
      componentId: 'sending.mailer',
      service: 'mailer',
      url: 'http://127.0.0.1:1',
      intervalMs: 1000,
      timeoutMs: 1000,
    });
    const [down] = (await probe.run()) as CheckResult[];
    expect(down!.status).toBe('major_outage');
    expect(down!.detail).toMatch(/^mailer unreachable: /);
  });

  it('a relay that answers EHLO is operational; one that refuses the session is an outage', async () => {
    let greeting = '220 relay.test ESMTP';
    const relay = createTcpServer((socket) => {
      socket.write(`${greeting}\r\n`);
      socket.on('data', (data: Buffer) => {
        const line = data.toString();
        if (line.startsWith('EHLO')) socket.write('250-relay.test\r\n250-PIPELINING\r\n250 8BITMIME\r\n');
        if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
      });
    });
    servers.push(relay);
    const port = await listening(relay);
    const probe = smtpProbe({ componentId: 'sending.relay', smtpUrl: `smtp://127.0.0.1:${port}`, intervalMs: 1000, timeoutMs: 1000 });
    expect(((await probe.run()) as CheckResult[])[0]).toMatchObject({ status: 'operational', detail: 'relay accepts EHLO' });
    greeting = '554 no service';
    expect(((await probe.run()) as CheckResult[])[0]).toMatchObject({ status: 'major_outage', detail: 'relay greeted with 554' });
  });
});
