import { mkdtempSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { loadConfig } from '@postbus/config';
import { createLogger } from '@postbus/logger';
import { defaultKafkaBrokers, defaultMongoUrl, startSmtpSink, uniqueName, waitFor, type SmtpSink } from '@postbus/testing';
import { start, type StatusService } from '../src/app';
import { main } from '../src/cli';
import { StatusConfig } from '../src/config';

const TOKEN = 'operator-token-for-the-cli-test';

/**
 * The status service as configured (in-process, on port 0) and its operator CLI: the subscription
 * settings reach the public endpoints, and operators list and remove subscribers.
 */
describe('status subscribers, the service and its operator CLI', () => {
  let sink: SmtpSink;
  let receiver: Server;
  let status: StatusService;
  const dbName = uniqueName('status-cli').replace(/-/g, '_');
  const env = { ...process.env };

  beforeAll(async () => {
    sink = await startSmtpSink();
    receiver = http.createServer((req, res) => {
      req.resume();
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const config = loadConfig(StatusConfig, {
      PORT: '0',
      STATUS_HOST: '127.0.0.1',
      MONGO_URL: defaultMongoUrl(),
      KAFKA_BROKERS: defaultKafkaBrokers(),
      STATUS_DB_NAME: dbName,
      STATUS_SNAPSHOT_FILE: join(mkdtempSync(join(tmpdir(), 'status-cli-')), 'snapshot.json'),
      STATUS_OPERATOR_TOKEN: TOKEN,
      STATUS_CHECK_INTERVAL_MS: '60000',
      STATUS_SMTP_URL: sink.smtpUrl,
      STATUS_WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      STATUS_TRUST_PROXY: 'loopback',
      STATUS_SUBSCRIBE_LIMIT_PER_CLIENT: '3',
    });
    status = await start({ config, logger: createLogger({ service: 'status-test', level: 'error' }) });
    process.env['STATUS_URL'] = status.url;
    process.env['STATUS_OPERATOR_TOKEN'] = TOKEN;
  });

  afterAll(async () => {
    process.env = env;
    await status?.stop();
    await new Promise((r) => receiver?.close(r));
    await sink?.process.stop();
    const db = await mongoose.createConnection(defaultMongoUrl(), { dbName }).asPromise();
    await db.dropDatabase();
    await db.close();
  });

  const subscribe = (body: unknown, client: string) =>
    fetch(`${status.url}/api/v2/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
      body: JSON.stringify(body),
    });

  /** Runs the CLI in-process; what it printed and its exit code. */
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...line: unknown[]) => void out.push(line.join(' ')));
    const error = jest.spyOn(console, 'error').mockImplementation((...line: unknown[]) => void err.push(line.join(' ')));
    try {
      const code = await main(args);
      return { code, out: out.join('\n'), err: err.join('\n') };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  };

  const email = `ops.${Date.now()}@example.com`;
  let emailId: string;
  let webhookId: string;
  let secret: string;

  it('when subscribers exist, `subscribers list` prints each one’s id, kind, whether confirmed and when created, and never a secret or a whole address', async () => {
    // Subscriptions need the status database: a 503 until its first connection is made.
    await waitFor(async () => (await subscribe({ email }, '198.51.100.50')).status === 202, {
      timeoutMs: 30_000,
      what: 'the email subscription',
    });
    const hook = await subscribe({ webhook: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/token-in-path` }, '198.51.100.1');
    expect(hook.status).toBe(201);
    ({ id: webhookId, secret } = (await hook.json()) as { id: string; secret: string });

    const listed = await cli('subscribers', 'list');
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines).toHaveLength(2);
    const [emailLine, webhookLine] = lines;
    emailId = emailLine!.split(/\s+/)[0]!;
    expect(emailLine).toMatch(
      new RegExp(`^${emailId}\\s+email\\s+unconfirmed\\s+created \\d{4}-\\d{2}-\\d{2}T\\S+Z\\s+o\\*\\*\\*@e\\*\\*\\*\\.com`),
    );
    expect(webhookLine).toMatch(
      new RegExp(`^${webhookId}\\s+webhook\\s+confirmed\\s+created \\d{4}-\\d{2}-\\d{2}T\\S+Z\\s+http://127\\.0\\.0\\.1:\\d+$`),
    );
    for (const leak of [secret, secret.slice(6), 'whsec_', email, 'token-in-path']) expect(listed.out).not.toContain(leak);

    const json = await cli('subscribers', 'list', '--json');
    expect(json.code).toBe(0);
    const { data } = JSON.parse(json.out) as { data: Array<Record<string, unknown>> };
    expect(data).toEqual([
      {
        id: emailId,
        kind: 'email',
        confirmed: false,
        confirmed_at: null,
        created_at: expect.any(String),
        expires_at: expect.any(String),
        target: 'o***@e***.com',
      },
      {
        id: webhookId,
        kind: 'webhook',
        confirmed: true,
        confirmed_at: expect.any(String),
        created_at: expect.any(String),
        expires_at: null,
        target: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      },
    ]);
    for (const leak of [secret.slice(6), 'whsec_', email]) expect(json.out).not.toContain(leak);
  });

  it('when an operator removes a subscriber by id, it is gone; an unknown id is an error naming it', async () => {
    const removed = await cli('subscribers', 'remove', webhookId);
    expect(removed).toMatchObject({ code: 0, out: `removed subscriber ${webhookId}` });
    expect((await cli('subscribers', 'list')).out).not.toContain(webhookId);
    const again = await cli('subscribers', 'remove', webhookId);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/404 Not found: There is no subscriber with this id\./);
    const missing = await cli('subscribers', 'remove');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/SUBSCRIBER_ID is required/);
  });

  it('when the operator token is missing or wrong, the subscriber API answers 401 problem+json', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-of-some-length' }] as Array<Record<string, string>>) {
      const list = await fetch(`${status.url}/api/operator/subscribers`, { headers });
      expect(list.status).toBe(401);
      expect(list.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const remove = await fetch(`${status.url}/api/operator/subscribers/${emailId}`, { method: 'DELETE', headers });
      expect(remove.status).toBe(401);
    }
    expect((await cli('subscribers', 'list')).out).toContain(emailId);
  });

  it('when one client address, as the trusted proxy names it, passes STATUS_SUBSCRIBE_LIMIT_PER_CLIENT, it gets 429; another does not', async () => {
    // 198.51.100.1 subscribed once above.
    for (const n of [2, 3]) expect((await subscribe({ email: `n${n}.${Date.now()}@example.com` }, '198.51.100.1')).status).toBe(202);
    const refused = await subscribe({ email: `fourth.${Date.now()}@example.com` }, '198.51.100.1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await subscribe({ email: `other.${Date.now()}@example.com` }, '198.51.100.2')).status).toBe(202);
  });
});
