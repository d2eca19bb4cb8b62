import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { readyzProbe } from './http-probes';
import { worstOfProbes } from './probe';
import { smtpProbe } from './smtp-probe';
import type { CheckResult } from '../../domain/model';
import type { Probe } from '../../domain/ports';

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
    const probe = smtpProbe({
      componentId: 'sending.relay',
      what: 'relay',
      smtpUrl: `smtp://127.0.0.1:${port}`,
      intervalMs: 1000,
      timeoutMs: 1000,
    });
    expect(((await probe.run()) as CheckResult[])[0]).toMatchObject({ status: 'operational', detail: 'relay accepts EHLO' });
    greeting = '554 no service';
    expect(((await probe.run()) as CheckResult[])[0]).toMatchObject({ status: 'major_outage', detail: 'relay greeted with 554' });
  });
});

describe('the SMTP submission probe', () => {
  const smtpServers: SMTPServer[] = [];
  afterAll(() => Promise.all(smtpServers.map((s) => new Promise((r) => s.close(() => r(undefined))))));

  /** A certificate for localhost, valid from `from` for `days` days. */
  const certificate = async (from: Date, days: number) => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      notBeforeDate: from,
      notAfterDate: new Date(from.getTime() + days * 86_400_000),
    });
    return { key: pems.private, cert: pems.cert };
  };

  /** A submission server as services/submission runs one: AUTH PLAIN and LOGIN, over TLS only. */
  async function submissionServer(options: Partial<SMTPServerOptions>): Promise<number> {
    const server = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth: (_auth, _session, callback) => callback(new Error('no')),
      ...options,
    });
    smtpServers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.server.address() as AddressInfo).port;
  }

  const probeOf = (smtpUrl: string) =>
    smtpProbe({ componentId: 'api.submission', what: 'submission', smtpUrl, submission: true, intervalMs: 1000, timeoutMs: 3000 });
  const run = async (probe: Probe) => ((await probe.run()) as CheckResult[])[0]!;

  it('a server that takes STARTTLS with a valid certificate and then offers AUTH is operational; one offering no STARTTLS is an outage', async () => {
    const tls = await certificate(new Date(Date.now() - 86_400_000), 30);
    const port = await submissionServer({ ...tls });
    expect(await run(probeOf(`smtp://localhost:${port}`))).toMatchObject({
      status: 'operational',
      detail: 'submission accepts TLS and AUTH',
    });

    const plain = await submissionServer({ ...tls, hideSTARTTLS: true });
    expect(await run(probeOf(`smtp://127.0.0.1:${plain}`))).toMatchObject({
      status: 'major_outage',
      detail: 'submission offers no STARTTLS: no client can log in',
    });
  });

  it('the implicit TLS port (smtps://) is judged alike, and an expired certificate is an outage naming its date', async () => {
    const valid = await submissionServer({ secure: true, ...(await certificate(new Date(Date.now() - 86_400_000), 30)) });
    expect(await run(probeOf(`smtps://127.0.0.1:${valid}`))).toMatchObject({ status: 'operational' });

    const expiredOn = new Date(Date.now() - 10 * 86_400_000);
    const expired = await submissionServer({ ...(await certificate(new Date(expiredOn.getTime() - 30 * 86_400_000), 30)) });
    const down = await run(probeOf(`smtp://127.0.0.1:${expired}`));
    expect(down.status).toBe('major_outage');
    expect(down.detail).toMatch(/^submission offers a certificate that expired on \d{4}-\d{2}-\d{2}T/);
  });

  it('with /readyz, the worse of the two is the verdict, and both good name what each saw', async () => {
    let ready = true;
    const http = createHttpServer((_req, res) => {
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks: { smtp: ready } }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const smtpPort = await submissionServer({ ...(await certificate(new Date(Date.now() - 86_400_000), 30)) });
    const probe = worstOfProbes('submission', 'api.submission', [
      readyzProbe({
        componentId: 'api.submission',
        service: 'submission',
        url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
        intervalMs: 1000,
        timeoutMs: 1000,
      }),
      probeOf(`smtp://127.0.0.1:${smtpPort}`),
    ]);
    try {
      expect(await run(probe)).toMatchObject({
        componentId: 'api.submission',
        status: 'operational',
        detail: 'submission ready; submission accepts TLS and AUTH',
      });
      ready = false;
      expect(await run(probe)).toMatchObject({ status: 'major_outage', detail: 'submission not ready: smtp not ready' });
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
