import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { consumerGroupLag } from '@postbus/bus';
import { ConsumerGroups, topicName } from '@postbus/contracts';
import { call, dataDir, defaultKafkaBrokers, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem, type ServiceName } from './system';
import { startReceiver } from './webhook-receiver';

const TRIGGERS = Number(process.env['BURST_TRIGGERS'] ?? 20_000);
const RECIPIENTS = Number(process.env['BURST_RECIPIENTS'] ?? 5_000);
const UPDATES = Number(process.env['BURST_UPDATES'] ?? 2_000);
const SENDERS = 32;
/**
 * How long each phase's backlog may take to drain: two and a half times the slowest drain seen on
 * a 2-core machine running the whole stack and this test. A consumer that livelocks (evicted in
 * the middle of every run, its commits refused) never drains at all.
 */
const DRAIN_BOUND_MS = 10 * 60_000;
/**
 * The p95 of the reads a support person makes (the message list, a message, a profile) while the
 * consumers drain, asserted in each phase (the log says each kind's figure).
 */
const READ_P95_GOAL_MS = 300;

/** Every consumer group the burst's messages reach (the inbound MX's take no part). */
const GROUPS: string[] = Object.values(ConsumerGroups).filter((group) => !group.startsWith(ConsumerGroups.inbound));

const recipient = (n: number, prefix = 'burst') => `${prefix}-${n % RECIPIENTS}@example.org`;

/** The nearest-rank p95: the 19th of 20 samples, the largest of 10. */
const p95 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.ceil(samples.length * 0.95) - 1] ?? NaN;

/**
 * A burst of triggers and updates meets consumers that were stopped while it arrived (a deploy, a
 * crash, a slow minute): each must drain its backlog, stay in its group and apply every command.
 */
describe('a burst of triggers drains through stopped consumers', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let admin: Admin;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    system = await startSystem({ LOG_LEVEL: 'warn', KAFKA_TOPIC_PARTITIONS: '6' });
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: 'mail.burst.example' });
    receiver = await startReceiver();
    const hook = await call(system.gatewayUrl, 'POST', '/v1/webhooks', {
      auth: client.auth,
      json: { url: receiver.url, events: ['message.sent'] },
    });
    if (hook.status !== 201) throw new Error(`the webhook endpoint was refused: ${hook.status} ${hook.text}`);
    admin = new Kafka({ brokers: defaultKafkaBrokers().split(','), clientId: 'burst-test', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.disconnect();
    await receiver?.close();
    await system?.stop();
  });

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, {
      auth: client.auth,
      ...(json !== undefined ? { json } : {}),
    });

  /** Triggers to RECIPIENTS addresses in turn (`prefix`-n); once each has had one, an update among every few triggers (`updates` in all). */
  async function burst(
    phase: string,
    { prefix = 'burst', updates: updateCount = UPDATES } = {},
  ): Promise<{ seconds: number; updated: Map<string, string>; messageIds: string[] }> {
    const started = Date.now();
    const updated = new Map<string, string>();
    const messageIds: string[] = [];
    const updateEvery = Math.max(1, Math.floor((TRIGGERS - RECIPIENTS) / Math.max(1, updateCount)));
    let next = 0;
    let updates = 0;
    const sender = async () => {
      while (next < TRIGGERS) {
        const n = next++;
        const res = await api('POST', '/emails/welcome/send', {
          user: { email: recipient(n, prefix), name: `User ${n % RECIPIENTS}` },
          data: { code: String(n) },
        });
        if (res.status !== 200) throw new Error(`trigger ${n} answered ${res.status}: ${res.text}`);
        messageIds.push(res.body.message_id as string);
        if (n >= RECIPIENTS && n % updateEvery === 0 && updates < updateCount) {
          const u = updates++;
          const email = recipient(u * 7, prefix);
          const mark = `${phase}-${n}`;
          const up = await api('PATCH', '/users/by-email', { email, fields: { burst_mark: mark } });
          if (up.status !== 200) throw new Error(`update ${u} answered ${up.status}: ${up.text}`);
          updated.set(email, mark);
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    return { seconds: (Date.now() - started) / 1000, updated, messageIds };
  }

  /** Each group's topics as seen while its members ran: a stopped group's lag counts them too. */
  const topicsOf = new Map<string, Set<string>>();
  const lags = async () => {
    const all = await Promise.all(
      GROUPS.map((g) => consumerGroupLag(admin, topicName(g, system.env['KAFKA_NAMESPACE']), [...(topicsOf.get(g) ?? [])])),
    );
    all.forEach((lag, i) =>
      topicsOf.set(GROUPS[i]!, new Set([...(topicsOf.get(GROUPS[i]!) ?? []), ...lag.partitions.map((p) => p.topic)])),
    );
    return Object.fromEntries(all.map((l, i) => [GROUPS[i]!, l.total]));
  };

  /**
   * What a support person opens during a busy hour, timed while the consumers drain: the message
   * list, a message (the mailer's reads), a profile (the users service's); each once its service is
   * up again (`up`).
   */
  function sampleReads(messageIds: string[], up: (name: ServiceName) => boolean) {
    const samples = { list: [] as number[], message: [] as number[], profile: [] as number[] };
    let running = true;
    const timed = async (into: number[], path: string) => {
      const started = performance.now();
      const res = await api('GET', path);
      if (res.status !== 200 && res.status !== 404) throw new Error(`${path} answered ${res.status}: ${res.text}`);
      into.push(performance.now() - started);
    };
    const loop = (async () => {
      for (let i = 0; running; i++) {
        if (up('mailer')) {
          await timed(samples.list, '/messages?limit=20');
          await timed(samples.message, `/messages/${messageIds[(i * 7919) % messageIds.length]}`);
        }
        if (up('users')) await timed(samples.profile, `/users?email=${encodeURIComponent(recipient(i * 31))}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
        return samples;
      },
    };
  }

  /** The consumer groups of the services the test stops. */
  const groupsOf: Partial<Record<ServiceName, string[]>> = {
    users: [ConsumerGroups.users, ConsumerGroups.usersBulk],
    mailer: [ConsumerGroups.mailerTriggers, ConsumerGroups.mailerBulk, ConsumerGroups.mailerProjections, ConsumerGroups.mailerFeedback],
    'webhook-dispatcher': [ConsumerGroups.webhooks, ConsumerGroups.webhooksProjects],
  };

  /**
   * Stops the services of every wave, sends a burst, then starts the waves again one after another,
   * each once the groups of those before it have drained, and waits for every group to drain.
   */
  async function drainThrough(phase: string, waves: ServiceName[][]) {
    await lags(); // learns the groups' topics while their members run
    for (const name of waves.flat()) await system.services[name].stop();
    const sent = await burst(phase);
    console.log(`${phase}: ${TRIGGERS} triggers and ${sent.updated.size} updates accepted in ${sent.seconds.toFixed(1)} s`);
    const backlog = await lags();
    const restarted = Date.now();
    const down = new Set(waves.flat());
    const reads = sampleReads(sent.messageIds, (name) => !down.has(name));
    for (const [i, wave] of waves.entries()) {
      for (const name of wave) {
        await system.restart(name);
        down.delete(name);
      }
      const later = waves.slice(i + 1).flat();
      const waiting = new Set(later.flatMap((name) => groupsOf[name] ?? []));
      await waitFor(
        async () => {
          const now = await lags();
          console.log(`${phase}: ${((Date.now() - restarted) / 1000).toFixed(0)} s`, JSON.stringify(now));
          return Object.entries(now).every(([group, lag]) => lag === 0 || waiting.has(group));
        },
        { timeoutMs: DRAIN_BOUND_MS, intervalMs: 5_000, what: `every group at lag 0 but those of ${later.join(', ') || 'none'}` },
      );
      console.log(`${phase}: ${wave.join(', ')} drained ${((Date.now() - restarted) / 1000).toFixed(1)} s after the first restart`);
    }
    const seconds = (Date.now() - restarted) / 1000;
    const samples = await reads.stop();
    console.log(
      `${phase}: drained in ${seconds.toFixed(1)} s from ${JSON.stringify(backlog)}; read p95 during the drain: list ${p95(samples.list).toFixed(0)} ms, message ${p95(samples.message).toFixed(0)} ms, profile ${p95(samples.profile).toFixed(0)} ms (${samples.list.length} each)`,
    );
    // A support person opens these during a busy hour: they must not queue behind the drain.
    expectWithinGoal(phase, samples);
    return { ...sent, seconds, backlog, samples };
  }

  /** Every recipient registered, every update applied, checked through the public API. */
  async function expectProfiles(updated: Map<string, string>) {
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
  }

  /**
   * The reads a client's support person makes after a burst, with every consumer running (issue
   * 46): 20 s after the last 200, twenty of the accepted messages by id, the message list ten
   * times, ten recipients' messages and ten profiles, one after another. Every one answers 200 (a
   * message the mailer has not reached yet reads as accepted), and each kind's p95 is within the
   * goal while the mailer, the users service and the webhook dispatcher still drain the burst.
   */
  async function readsAfterBurst(phase: string, messageIds: string[], prefix: string) {
    const samples = { message: [] as number[], list: [] as number[], recipientMessages: [] as number[], profile: [] as number[] };
    const refused: string[] = [];
    const statuses = new Map<string, number>();
    const timed = async (kind: keyof typeof samples, path: string) => {
      const started = performance.now();
      const res = await api('GET', path);
      samples[kind].push(performance.now() - started);
      if (res.status !== 200) refused.push(`${path}: ${res.status}`);
      else if (kind === 'message') statuses.set(res.body.status as string, (statuses.get(res.body.status as string) ?? 0) + 1);
    };
    for (let i = 0; i < 20; i++) await timed('message', `/messages/${messageIds[(i * 7919 + 13) % messageIds.length]}`);
    for (let i = 0; i < 10; i++) await timed('list', '/messages?limit=20');
    for (let i = 0; i < 10; i++)
      await timed('recipientMessages', `/messages?limit=20&email=${encodeURIComponent(recipient(i * 431, prefix))}`);
    for (let i = 0; i < 10; i++) await timed('profile', `/users?email=${encodeURIComponent(recipient(i * 431 + 7, prefix))}`);
    console.log(
      `${phase}: reads 20 s after the burst, p95: ${Object.entries(samples)
        .map(([kind, taken]) => `${kind} ${p95(taken).toFixed(0)} ms`)
        .join(
          ', ',
        )}; messages read as ${JSON.stringify(Object.fromEntries(statuses))}; non-200: ${refused.length}; lag then ${JSON.stringify(await lags())}`,
    );
    expect(refused).toEqual([]);
    // Ten reads of a kind make its p95 their slowest: each kind has measured 109–195 ms here on two
    // cores with the whole stack draining (the list page 461–769 ms before issue 46, and up to
    // 307 ms before a mailer read the summaries it had just kept from memory).
    expectWithinGoal(phase, samples);
  }

  /** Logs whether each kind of read met the goal, then asserts it. */
  function expectWithinGoal(phase: string, samples: Record<string, number[]>) {
    const overGoal = Object.entries(samples).filter(([, taken]) => !(p95(taken) <= READ_P95_GOAL_MS));
    console.log(
      `${phase}: the ${READ_P95_GOAL_MS} ms read goal is ${overGoal.length === 0 ? 'met' : `missed by ${overGoal.map(([kind]) => kind).join(', ')}`}`,
    );
    expect(overGoal.map(([kind, taken]) => `${kind} ${Math.round(p95(taken))} ms`)).toEqual([]);
  }

  const logOf = (name: ServiceName) => readFileSync(join(dataDir(), 'logs', `${system.env['KAFKA_NAMESPACE']}-${name}.log`), 'utf8');

  it(
    'with the users service, the mailer and the webhook dispatcher stopped during the burst and started again in turn, every group drains, every profile and update is there, every mail goes and every webhook is delivered',
    async () => {
      const before = await system.sink.client.count();
      const { updated, messageIds } = await drainThrough('users, mailer and dispatcher stopped', [
        ['users'],
        ['mailer', 'webhook-dispatcher'],
      ]);
      await expectProfiles(updated);
      expect(await system.sink.client.count()).toBeGreaterThanOrEqual(before + TRIGGERS);
      const delivered = await waitFor(
        () => {
          const ids = new Set(receiver.received.map((r) => (JSON.parse(r.body) as { data: { message_id: string } }).data.message_id));
          return messageIds.every((id) => ids.has(id)) ? ids : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1_000, what: "every message's message.sent webhook" },
      );
      expect(delivered.size).toBeGreaterThanOrEqual(messageIds.length);
      for (const name of ['mailer', 'webhook-dispatcher', 'users'] as const) expect(logOf(name)).not.toMatch(/not aware of this member/);
      // What the users service tells Prometheus: caught up, and in its group since it started.
      const metrics = (await call(system.services.users.url, 'GET', '/metrics')).text;
      expect(metrics).toMatch(/^postbus_consumer_lag\{group="postbus-users[^"]*",service="users"\} 0$/m);
      expect(metrics).toMatch(/^postbus_consumer_rebalances_total\{group="postbus-users[^"]*",service="users"\} [1-9]/m);
    },
    30 * 60_000,
  );

  it(
    'with every consumer running, a support person’s reads 20 s after a burst all answer 200 within the read goal (a message the mailer has not reached reads as accepted)',
    async () => {
      const phase = 'every consumer running';
      const sent = await burst(phase, { prefix: 'running', updates: 0 });
      console.log(`${phase}: ${TRIGGERS} triggers accepted in ${sent.seconds.toFixed(1)} s`);
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      await readsAfterBurst(phase, sent.messageIds, 'running');
    },
    10 * 60_000,
  );
});
