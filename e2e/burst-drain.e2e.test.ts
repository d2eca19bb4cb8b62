import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { consumerGroupLag } from '@postbus/bus';
import { topicName } from '@postbus/contracts';
import { call, dataDir, defaultKafkaBrokers, sleep, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem, type ServiceName } from './system';

const TRIGGERS = Number(process.env['BURST_TRIGGERS'] ?? 20_000);
const RECIPIENTS = Number(process.env['BURST_RECIPIENTS'] ?? 5_000);
const UPDATES = Number(process.env['BURST_UPDATES'] ?? 2_000);
const SENDERS = 32;

/** Every consumer group of the system's services (the gateway's own group excepted: it reads the catalog only). */
const GROUPS = [
  'postbus-users',
  'postbus-mailer-triggers',
  'postbus-mailer-projections',
  'postbus-webhooks',
  'postbus-webhooks-projects',
  'postbus-payments',
  'postbus-payments-users',
  'postbus-erasure',
  'postbus-erasure-users',
];

const recipient = (n: number) => `burst-${n % RECIPIENTS}@example.org`;

/**
 * A burst of triggers and updates meets consumers that were stopped while it arrived (a deploy, a
 * crash, a slow minute): each must drain its backlog, stay in its group and apply every command.
 */
describe('a burst of triggers drains through stopped consumers', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let admin: Admin;

  beforeAll(async () => {
    system = await startSystem({ LOG_LEVEL: 'warn', KAFKA_TOPIC_PARTITIONS: '6' });
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: 'mail.burst.example' });
    admin = new Kafka({ brokers: defaultKafkaBrokers().split(','), clientId: 'burst-test', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await system?.stop();
  });

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, {
      auth: client.auth,
      ...(json !== undefined ? { json } : {}),
    });

  /** Triggers to RECIPIENTS addresses in turn; once each has had one, an update among every few triggers. */
  async function burst(): Promise<{ seconds: number; updated: Map<string, string> }> {
    const started = Date.now();
    const updated = new Map<string, string>();
    const updateEvery = Math.max(1, Math.floor((TRIGGERS - RECIPIENTS) / UPDATES));
    let next = 0;
    let updates = 0;
    const sender = async () => {
      while (next < TRIGGERS) {
        const n = next++;
        const res = await api('POST', '/emails/welcome/send', {
          user: { email: recipient(n), name: `User ${n % RECIPIENTS}` },
          data: { code: String(n) },
        });
        if (res.status !== 200) throw new Error(`trigger ${n} answered ${res.status}: ${res.text}`);
        if (n >= RECIPIENTS && n % updateEvery === 0 && updates < UPDATES) {
          const u = updates++;
          const email = recipient(u * 7);
          const mark = `mark-${n}`;
          const up = await api('PATCH', '/users/by-email', { email, fields: { burst_mark: mark } });
          if (up.status !== 200) throw new Error(`update ${u} answered ${up.status}: ${up.text}`);
          updated.set(email, mark);
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    return { seconds: (Date.now() - started) / 1000, updated };
  }

  const lags = async () => {
    const all = await Promise.all(GROUPS.map((g) => consumerGroupLag(admin, topicName(g, system.env['KAFKA_NAMESPACE']))));
    return Object.fromEntries(all.map((l, i) => [GROUPS[i]!, l.total]));
  };

  it(
    'with the users service stopped during the burst, every group drains to lag 0 and every profile and update is there',
    async () => {
      const stopped: ServiceName[] = ['users'];
      for (const name of stopped) await system.services[name].stop();
      const { seconds, updated } = await burst();
      console.log(`burst: ${TRIGGERS} triggers and ${updated.size} updates accepted in ${seconds.toFixed(1)} s`);
      const backlog = await lags();
      console.log('lag after the burst', backlog);
      const restarted = Date.now();
      for (const name of stopped) await system.restart(name);
      let last = backlog;
      await waitFor(
        async () => {
          last = await lags();
          console.log(`${((Date.now() - restarted) / 1000).toFixed(0)} s`, JSON.stringify(last));
          return Object.values(last).every((lag) => lag === 0);
        },
        { timeoutMs: 15 * 60_000, intervalMs: 5_000, what: 'every group at lag 0' },
      );
      console.log(`drained in ${((Date.now() - restarted) / 1000).toFixed(1)} s`);

      // Every recipient registered, every update applied, checked through the public API.
      const missing: string[] = [];
      const stale: string[] = [];
      let next = 0;
      const reader = async () => {
        while (next < RECIPIENTS) {
          const email = recipient(next++);
          const res = await api('GET', `/users?email=${encodeURIComponent(email)}`);
          if (res.status !== 200) missing.push(`${email}: ${res.status}`);
          else if (updated.has(email) && res.body.fields?.burst_mark !== updated.get(email))
            stale.push(`${email}: ${JSON.stringify(res.body.fields)}`);
        }
      };
      await Promise.all(Array.from({ length: 16 }, reader));
      expect(missing.slice(0, 5)).toEqual([]);
      expect(stale.slice(0, 5)).toEqual([]);
      for (const name of stopped) expect(logOf(system, name)).not.toMatch(/not aware of this member/);
      await sleep(0);
    },
    30 * 60_000,
  );
});

export const logOf = (system: RunningSystem, name: string) =>
  readFileSync(join(dataDir(), 'logs', `${system.env['KAFKA_NAMESPACE']}-${name}.log`), 'utf8');
