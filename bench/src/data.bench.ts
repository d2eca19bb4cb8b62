/**
 * The data-growth benchmark (issue 14): the reads of the public API and trigger → sink, first with the store
 * holding only the measured project's few messages, then after each service's seed CLI has filled the same
 * databases with a big project of its own; then the erasure of a person with tens of thousands of messages.
 * Run with `npm run bench:data -- [options]`. Results: bench/results/data-<timestamp>.json, data-latest.json and
 * data-latest.md.
 *   --scale 1             multiplies every default size below (0.1 for a quick run)
 *   --messages 200000     messages of the seeded project (the mailer's seed writes their timeline events too)
 *   --users 100000  --deliveries 200000  --payments 100000  --erasures 0 (if the erasure service has a seed)
 *   --person-messages 40000   messages (and webhook deliveries) of the person erased at the end
 *   --person-payments 100     payments of that person
 *   --requests 40  --warmup 3 sequential requests per read (timed, untimed)
 *   --rate 5  --duration 10   triggers a second, and seconds, of each trigger → sink run
 *   --erasure-timeout 1800    seconds to wait for the person's erasure to complete
 *   --no-seed                 only the empty phase
 *   BENCH_KEEP_DATA=1         keep the run's topics, consumer groups and databases (until the next `npm test`, which removes what finished runs left)
 *   BENCH_SEED_ROOT=<dir>     run the seed CLIs of another built checkout (services/<svc>/dist/seed.js there)
 *   QUERY_AUDIT=strict        run the services with the query audit on (a scanning read then fails, as a 500)
 */
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConsumerGroups } from '@postbus/contracts';
import { call, freePort, repoRoot, sleep, waitFor } from '@postbus/testing';
import { startPostbusService } from './children';
import { ApiSurface, measureReads, ReadClient, type ReadResult, type ReadSpec, type SkippedRead } from './data-reads';
import { compareReads, formatMarkdown, GOALS, type DataBenchResults, type ErasureRun, type Phase, type SinkRun } from './data-report';
import { idOf, runSeed, seedAvailable, seedPlans, type SeedOutcome, type SeedSizes } from './data-seeds';
import { RunInfrastructure } from './infra';
import { SENDER_DOMAIN } from './mail-template';
import { envFlag } from './options';
import { BenchRun, runBench, saveResults } from './run';
import { authorizationOf, benchEnv, createClient, createProject, createSendableEmail, environment, UNTHROTTLED } from './setup';
import { latencyOf } from './stats';
import { matchDeliveries, readSink, TriggerClient, waitForSinkCount } from './triggers';

const STARTED = Date.now();
const progress = (message: string) => console.log(`[data ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(6)} s] ${message}`);

const DEFAULT_SIZES: SeedSizes = {
  messages: 200_000,
  users: 100_000,
  deliveries: 200_000,
  payments: 100_000,
  erasures: 0,
  personMessages: 40_000,
  personPayments: 100,
};

/** The services the run starts, in the order it starts them (side by side, they race to create the run's topics). */
const SERVICES = ['users', 'mailer', 'webhook-dispatcher', 'payments', 'erasure', 'gateway'] as const;
type ServiceName = (typeof SERVICES)[number];

interface Options {
  scale: number;
  sizes: SeedSizes;
  requests: number;
  warmup: number;
  rate: number;
  duration: number;
  erasureTimeoutSec: number;
  seed: boolean;
}

function optionsOf(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string', default: '1' },
      messages: { type: 'string' },
      users: { type: 'string' },
      deliveries: { type: 'string' },
      payments: { type: 'string' },
      erasures: { type: 'string' },
      'person-messages': { type: 'string' },
      'person-payments': { type: 'string' },
      requests: { type: 'string', default: '40' },
      warmup: { type: 'string', default: '3' },
      rate: { type: 'string', default: '5' },
      duration: { type: 'string', default: '10' },
      'erasure-timeout': { type: 'string', default: '1800' },
      'no-seed': { type: 'boolean', default: false },
    },
  });
  const number = (name: string, text: string | undefined, { min = 0, integer = true } = {}): number => {
    const value = Number(text);
    if (text === undefined || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value)))
      throw new Error(`--${name} must be ${integer ? 'a whole number' : 'a number'} of at least ${min}, not "${text}"`);
    return value;
  };
  const scale = number('scale', values.scale, { integer: false });
  const size = (name: keyof SeedSizes, flag: string): number => {
    const given = values[flag as keyof typeof values];
    return typeof given === 'string' ? number(flag, given) : Math.round(DEFAULT_SIZES[name] * scale);
  };
  return {
    scale,
    sizes: {
      messages: size('messages', 'messages'),
      users: size('users', 'users'),
      deliveries: size('deliveries', 'deliveries'),
      payments: size('payments', 'payments'),
      erasures: size('erasures', 'erasures'),
      personMessages: size('personMessages', 'person-messages'),
      // A person's payments stay a handful whatever the scale.
      personPayments:
        values['person-payments'] !== undefined ? number('person-payments', values['person-payments']) : DEFAULT_SIZES.personPayments,
    },
    requests: number('requests', values.requests, { min: 1 }),
    warmup: number('warmup', values.warmup),
    rate: number('rate', values.rate, { min: 0.1, integer: false }),
    duration: number('duration', values.duration, { min: 1 }),
    erasureTimeoutSec: number('erasure-timeout', values['erasure-timeout'], { min: 1 }),
    seed: !values['no-seed'],
  };
}

/** A webhook receiver that answers every POST 204 and counts them. */
async function startWebhookReceiver(): Promise<{ server: Server; url: string; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}/hooks`, received: () => received };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What the reads of a project need: ids of things that exist in it. */
interface ReadContext {
  projectId: string;
  messageId?: string;
  email?: string;
  userId?: string;
  /** The user_id the message list is filtered by (the mailer's seed names its users apart from the users seed's). */
  messagesUserId?: string;
  emailKey?: string;
  /** Time range of the project's messages, ISO timestamps. */
  from: string;
  to: string;
  webhookId?: string;
  deliveryId?: string;
  paymentEmail?: string;
  paymentUserId?: string;
  erasureId?: string;
  /** A cursor to a project's second page of messages. */
  messageCursor?: string;
}

/** The reads of item 1 for a project, with what each needs; a read whose ids are missing is skipped, with why. */
function readsOf(ctx: ReadContext, withClientWide: boolean): { reads: ReadSpec[]; unready: SkippedRead[]; order: string[] } {
  const p = `/v1/projects/${ctx.projectId}`;
  const P = '/v1/projects/{projectId}';
  const reads: ReadSpec[] = [];
  const unready: SkippedRead[] = [];
  const order: string[] = [];
  const add = (name: string, needs: Partial<Record<keyof ReadContext, string | undefined>>, spec: () => Omit<ReadSpec, 'name'>) => {
    order.push(name);
    const lacking = Object.keys(needs).filter((key) => needs[key as keyof ReadContext] === undefined);
    if (lacking.length === 0) reads.push({ name, ...spec() });
    else unready.push({ name, request: '', reason: `the run has no ${lacking.join(' or ')} for it (its seed gave none)` });
  };
  const list = { limit: '20' };
  add('message by id', { messageId: ctx.messageId }, () => ({
    route: `${P}/messages/{messageId}`,
    path: `${p}/messages/${ctx.messageId}`,
  }));
  add('message list', {}, () => ({ route: `${P}/messages`, path: `${p}/messages`, query: list }));
  add('message list, next page', { messageCursor: ctx.messageCursor }, () => ({
    route: `${P}/messages`,
    path: `${p}/messages`,
    query: { limit: '10', cursor: ctx.messageCursor! },
  }));
  add('message list, status=sent', {}, () => ({ route: `${P}/messages`, path: `${p}/messages`, query: { ...list, status: 'sent' } }));
  add("a user's messages (email=)", { email: ctx.email }, () => ({
    route: `${P}/messages`,
    path: `${p}/messages`,
    query: { ...list, email: ctx.email! },
  }));
  add("a user's messages (user_id=)", { messagesUserId: ctx.messagesUserId }, () => ({
    route: `${P}/messages`,
    path: `${p}/messages`,
    query: { ...list, user_id: ctx.messagesUserId! },
  }));
  add('message list, email_key=', { emailKey: ctx.emailKey }, () => ({
    route: `${P}/messages`,
    path: `${p}/messages`,
    query: { ...list, email_key: ctx.emailKey! },
  }));
  add('message list, time range', {}, () => ({
    route: `${P}/messages`,
    path: `${p}/messages`,
    query: { ...list, from: ctx.from, to: ctx.to },
  }));
  add('message stats', {}, () => ({
    route: `${P}/messages/stats`,
    path: `${p}/messages/stats`,
    query: { from: day(Date.parse(ctx.from)), to: day(Date.parse(ctx.to)) },
  }));
  add('user by email', { email: ctx.email }, () => ({ route: `${P}/users`, path: `${p}/users`, query: { email: ctx.email! } }));
  add('user by user_id', { userId: ctx.userId }, () => ({
    route: `${P}/users/{userId}`,
    path: `${p}/users/${encodeURIComponent(ctx.userId!)}`,
  }));
  add('webhook deliveries', { webhookId: ctx.webhookId }, () => ({
    route: '/v1/webhooks/{webhookId}/deliveries',
    path: `/v1/webhooks/${ctx.webhookId}/deliveries`,
    query: list,
  }));
  add('webhook deliveries, status=succeeded (with attempts)', { webhookId: ctx.webhookId }, () => ({
    route: '/v1/webhooks/{webhookId}/deliveries',
    path: `/v1/webhooks/${ctx.webhookId}/deliveries`,
    query: { ...list, status: 'succeeded' },
  }));
  add("a delivery's attempts", { webhookId: ctx.webhookId, deliveryId: ctx.deliveryId }, () => ({
    route: '/v1/webhooks/{webhookId}/deliveries/{deliveryId}',
    path: `/v1/webhooks/${ctx.webhookId}/deliveries/${ctx.deliveryId}`,
  }));
  add('payments (email=)', { paymentEmail: ctx.paymentEmail }, () => ({
    route: `${P}/payments`,
    path: `${p}/payments`,
    query: { ...list, email: ctx.paymentEmail! },
  }));
  add('payments (user_id=)', { paymentUserId: ctx.paymentUserId }, () => ({
    route: `${P}/payments`,
    path: `${p}/payments`,
    query: { ...list, user_id: ctx.paymentUserId! },
  }));
  add('revenue analytics (30 days)', {}, () => ({
    route: `${P}/analytics/revenue`,
    path: `${p}/analytics/revenue`,
    query: { from: day(Date.now() - 29 * 86_400_000), to: day(Date.now()) },
  }));
  if (withClientWide) {
    add('erasure list (project_id=)', {}, () => ({
      route: '/v1/erasures',
      path: '/v1/erasures',
      query: { ...list, project_id: ctx.projectId },
    }));
    add('erasure list (all projects)', {}, () => ({ route: '/v1/erasures', path: '/v1/erasures', query: list }));
    add('erasure by id', { erasureId: ctx.erasureId }, () => ({
      route: '/v1/erasures/{erasureId}',
      path: `/v1/erasures/${ctx.erasureId}`,
    }));
  }
  return { reads, unready, order };
}

async function main(): Promise<number> {
  const options = optionsOf(process.argv.slice(2));
  const keepData = envFlag('BENCH_KEEP_DATA');
  const queryAudit = process.env['QUERY_AUDIT'] ?? 'off';
  // The groups the run deletes at its end; the users service's is BusProbe's own.
  const infra = new RunInfrastructure(
    'dbench',
    SERVICES,
    Object.values(ConsumerGroups).filter((group) => group !== ConsumerGroups.users && !group.startsWith(ConsumerGroups.inbound)),
  );
  const { runId } = infra;

  const run = new BenchRun(progress);
  const { signal, started } = run;
  let triggers: TriggerClient | undefined;
  let reader: ReadClient | undefined;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  try {
    const s = options.sizes;
    progress(
      `run ${runId}, scale ${options.scale}: ${s.messages} messages, ${s.users} users, ${s.deliveries} deliveries, ${s.payments} payments` +
        `${s.erasures > 0 ? `, ${s.erasures} erasures` : ''}, a person with ${s.personMessages} messages; checking Kafka and MongoDB`,
    );
    await infra.ensure();
    const { dns, sink } = await infra.startMailStandIns(run);
    receiver = await startWebhookReceiver();

    const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await freePort()] as const))) as Record<
      ServiceName,
      number
    >;
    const env = benchEnv({
      namespace: runId,
      ports,
      smtpUrl: sink.smtpUrl,
      dnsServers: dns.address,
      overrides: {
        ...UNTHROTTLED,
        // An erasure goes ahead a second after it is asked for (two days by default), checked every second.
        ERASURE_DELAY: 'PT1S',
        QUERY_AUDIT: queryAudit,
      },
    });
    for (const name of SERVICES) {
      progress(`starting ${name}`);
      started(await startPostbusService(name, ports[name], env, `${runId}-${name}`));
      signal.throwIfAborted();
    }
    const gatewayUrl = env['PUBLIC_BASE_URL']!;

    // The measured project, made as a client would make it, with a little real traffic of every kind.
    const credentials = await createClient(env);
    const authorization = authorizationOf(credentials);
    /** A set-up or erase call as a client makes it: a 503 or 429 ("retry later") is retried with backoff. */
    const api = async (method: string, path: string, json?: unknown, expected = [200, 201, 202]) => {
      for (let attempt = 1; ; attempt++) {
        const res = await call(gatewayUrl, method, path, { auth: authorization, ...(json !== undefined ? { json } : {}) });
        if (expected.includes(res.status)) return res.body as Record<string, unknown>;
        if ((res.status === 503 || res.status === 429) && attempt < 6) {
          progress(`${method} ${path} answered ${res.status}; retrying (attempt ${attempt + 1} of 6)`);
          await sleep(Math.min(30_000, 1_000 * 2 ** attempt));
          continue;
        }
        throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
      }
    };
    const measured = await createProject(gatewayUrl, authorization, 'bench measured');
    const seededProject = await createProject(gatewayUrl, authorization, 'bench seeded');
    const email = await createSendableEmail(gatewayUrl, authorization, measured, dns);
    const p = `/v1/projects/${measured}`;
    const webhook = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['*'],
      project_id: measured,
      description: 'bench:data',
    });
    const webhookId = webhook['id'] as string;
    progress(`measured project ${measured} (email "${email.emailKey}", webhook ${webhookId}); seeded project ${seededProject}`);

    const known = { email: `known-${runId}@rcpt.bench.example`, user_id: `known-${runId}` };
    await api('POST', `${p}/users`, { ...known, fields: { plan: 'pro' } });
    await waitFor(async () => (await call(gatewayUrl, 'GET', `${p}/users/${known.user_id}`, { auth: authorization })).status === 200, {
      timeoutMs: 30_000,
      what: 'the known user',
    });
    for (let n = 0; n < 5; n++)
      await api('POST', `${p}/payments`, { ...known, payment_id: `pay-${n}`, amount: 1000 + n * 250, currency: n % 2 ? 'EUR' : 'USD' });

    triggers = new TriggerClient({ gatewayUrl, projectId: measured, emailKey: email.emailKey, authorization, connections: 4 });
    const rangeFrom = new Date(Date.now() - 60_000).toISOString();
    await sink.client.clear();
    const sendTo = async (user: Record<string, unknown>) => {
      const body = await api('POST', `${p}/emails/${email.emailKey}/send`, { user, data: { product: 'Benchly', code: '123456' } });
      return body['message_id'] as string;
    };
    const knownMessages: string[] = [];
    for (let n = 0; n < 10; n++) knownMessages.push(await sendTo({ ...known, name: 'Known' }));
    const others = await triggers.closedLoop(`${runId}-setup`, 30, 4, signal);
    const goner = `gone-${runId}@rcpt.bench.example`;
    await sendTo({ email: goner, name: 'Gone' });
    const sent = 10 + others.filter((t) => t.messageId).length + 1;
    const atSink = await waitForSinkCount(sink.client, sent, { stallMs: 30_000, signal });
    progress(`set-up: ${atSink}/${sent} messages at the sink; ${receiver.received()} webhooks received so far`);
    const messageId = knownMessages[0]!;
    await waitFor(
      async () => (await call(gatewayUrl, 'GET', `${p}/messages/${messageId}`, { auth: authorization })).body?.status === 'sent',
      {
        timeoutMs: 30_000,
        what: `message ${messageId} to read sent`,
      },
    );
    const deliveries = await waitFor(
      async () => {
        const res = await call(gatewayUrl, 'GET', `/v1/webhooks/${webhookId}/deliveries?status=succeeded&limit=5`, { auth: authorization });
        const data = (res.body?.data ?? []) as Array<{ id: string }>;
        return data.length > 0 ? data : undefined;
      },
      { timeoutMs: 60_000, what: 'a succeeded webhook delivery' },
    );
    await waitFor(
      async () =>
        (
          (await call(gatewayUrl, 'GET', `${p}/payments?email=${encodeURIComponent(known.email)}`, { auth: authorization })).body?.data ??
          []
        ).length >= 5,
      { timeoutMs: 30_000, what: 'the five payments' },
    );

    const erase = async (projectId: string, who: string) => {
      const asked = Date.now();
      const accepted = await api('POST', `/v1/projects/${projectId}/users/erase`, { email: who });
      return { erasureId: accepted['erasure_id'] as string, eraseAt: Date.parse(accepted['erase_at'] as string), asked };
    };
    /** Polls GET /v1/erasures/{id} until it reads completed (or the timeout): the run's account of it. */
    const awaitErasure = async (
      started: { erasureId: string; eraseAt: number; asked: number },
      personMessages: number,
      timeoutSec: number,
    ): Promise<ErasureRun> => {
      let lastStatus = 'not yet recorded';
      let reportedAt = Date.now();
      const deadline = started.asked + timeoutSec * 1000;
      while (Date.now() < deadline) {
        signal.throwIfAborted();
        const res = await call(gatewayUrl, 'GET', `/v1/erasures/${started.erasureId}`, { auth: authorization });
        if (res.status === 200) lastStatus = res.body.status as string;
        else if (res.status !== 404) lastStatus = `HTTP ${res.status}`;
        if (lastStatus === 'completed') {
          const done = Date.now();
          return {
            erasureId: started.erasureId,
            personMessages,
            completedAfterMs: done - started.asked,
            afterEraseAtMs: done - started.eraseAt,
            lastStatus,
            timeoutSec,
            completed: true,
          };
        }
        if (Date.now() - reportedAt >= 10_000) {
          reportedAt = Date.now();
          progress(`  erasure ${started.erasureId}: ${lastStatus} after ${Math.round((Date.now() - started.asked) / 1000)} s`);
        }
        await sleep(250);
      }
      return {
        erasureId: started.erasureId,
        personMessages,
        completedAfterMs: null,
        afterEraseAtMs: null,
        lastStatus,
        timeoutSec,
        completed: false,
      };
    };
    const smallErasure = await awaitErasure(await erase(measured, goner), 1, 120);
    progress(
      smallErasure.completed
        ? `set-up: an erasure of a person with one message completed in ${smallErasure.completedAfterMs} ms`
        : `set-up: the erasure of a person with one message is still "${smallErasure.lastStatus}" after 120 s`,
    );

    reader = new ReadClient(gatewayUrl, authorization);
    const firstPage = await reader.json<{ next_cursor: string | null }>(`${p}/messages?limit=10`);
    const ctx: ReadContext = {
      projectId: measured,
      messageId,
      email: known.email,
      userId: known.user_id,
      messagesUserId: known.user_id,
      emailKey: email.emailKey,
      from: rangeFrom,
      to: new Date(Date.now() + 3_600_000).toISOString(),
      webhookId,
      deliveryId: deliveries[0]!.id,
      paymentEmail: known.email,
      paymentUserId: known.user_id,
      ...(smallErasure.erasureId ? { erasureId: smallErasure.erasureId } : {}),
      ...(firstPage.next_cursor ? { messageCursor: firstPage.next_cursor } : {}),
    };
    const surface = await ApiSurface.read(gatewayUrl);
    const client = reader;
    const onRead = (r: ReadResult | SkippedRead) =>
      'reason' in r
        ? progress(`  ${r.name}: skipped, ${r.reason}`)
        : progress(
            `  ${r.name}: p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, max ${r.latencyMs.max} ms` +
              (r.firstFailure ? `; not every answer 200: ${r.firstFailure}` : '') +
              (r.abandoned > 0 ? `; ${r.abandoned} requests not made (out of time)` : ''),
          );
    const readOrder = readsOf(ctx, true).order;
    const readPhase = async (context: ReadContext, withClientWide: boolean) => {
      const { reads, unready } = readsOf(context, withClientWide);
      for (const u of unready) onRead(u);
      const { measured: results, skipped } = await measureReads(client, surface, reads, {
        requests: options.requests,
        warmup: options.warmup,
        signal,
        onRead,
      });
      return { reads: results, skipped: [...unready, ...skipped] };
    };
    const sinkRun = async (tag: string): Promise<SinkRun> => {
      await sink.client.clear();
      progress(`trigger -> sink: ${options.rate}/s for ${options.duration} s`);
      const fired = await triggers!.paced(`${runId}-${tag}`, options.rate, options.duration, signal);
      const accepted = fired.filter((t) => t.messageId !== null).length;
      await waitForSinkCount(sink.client, accepted, { stallMs: 30_000, signal });
      const match = matchDeliveries(fired, await readSink(sink.client), SENDER_DOMAIN);
      const result: SinkRun = {
        rate: options.rate,
        durationSec: options.duration,
        triggers: fired.length,
        accepted,
        matched: match.matched,
        latencyMs: latencyOf(match.latencies),
        firstError: fired.find((t) => t.error !== undefined)?.error ?? null,
      };
      progress(
        `  ${result.matched}/${result.triggers} at the sink: p50 ${result.latencyMs.p50} ms, p95 ${result.latencyMs.p95} ms, max ${result.latencyMs.max} ms`,
      );
      return result;
    };

    // Phase 1: the store holds only the measured project's few documents.
    progress(`empty store: ${options.requests} requests of each read`);
    const load = () => Math.round(loadavg()[0]! * 100) / 100;
    const emptyLoad = load();
    const emptyReads = await readPhase(ctx, true);
    const empty: Phase = { ...emptyReads, triggerToSink: await sinkRun('empty'), loadAverage: { start: emptyLoad, end: load() } };

    // Phase 2: the seeds fill the same databases with another project.
    const person = `person-${runId}@rcpt.bench.example`;
    const plans = options.seed ? seedPlans(options.sizes, { projectId: seededProject, clientId: credentials.client_id, person }) : [];
    const missingSeeds = plans.filter((plan) => !seedAvailable(plan.service)).map((plan) => plan.service);
    if (missingSeeds.length > 0) progress(`no seed CLI yet for ${missingSeeds.join(', ')}: their stores stay small`);
    const seeds: SeedOutcome[] = [];
    const seedFailures: string[] = [];
    for (const plan of plans.filter((pl) => seedAvailable(pl.service))) {
      progress(`seeding ${plan.service}: ${plan.count} ${plan.unit} into project ${seededProject} (${plan.args.join(' ')})`);
      try {
        const outcome = await runSeed(plan, env, `${runId}-seed-${plan.service}`, progress, signal);
        seeds.push(outcome);
        progress(
          `  ${plan.service}: ${JSON.stringify(outcome.seeded)} in ${(outcome.ms / 1000).toFixed(1)} s (${outcome.rate} ${plan.unit}/s)`,
        );
      } catch (error) {
        // One seed failing leaves the others' growth worth measuring; the report names it.
        if (signal.aborted) throw error;
        seedFailures.push(error instanceof Error ? error.message : String(error));
        progress(`  ${seedFailures.at(-1)}`);
      }
    }

    let seeded: Phase | null = null;
    let seededProjectReads: ReadResult[] = [];
    let seededProjectSkipped: SkippedRead[] = [];
    let erasure: ErasureRun | null = null;
    if (seeds.length > 0) {
      progress(`seeded store: ${options.requests} requests of each read of the measured project`);
      const seededLoad = load();
      const seededReads = await readPhase(ctx, true);
      seeded = { ...seededReads, triggerToSink: await sinkRun('seeded'), loadAverage: { start: seededLoad, end: load() } };

      const idsOf = (service: string) => seeds.find((o) => o.service === service)?.ids;
      const mailerIds = idsOf('mailer');
      const userIds = idsOf('users');
      const dispatcherIds = idsOf('webhook-dispatcher');
      const paymentIds = idsOf('payments');
      const bigCursor = await client
        .json<{ next_cursor: string | null }>(`/v1/projects/${seededProject}/messages?limit=10`)
        .then((page) => page.next_cursor ?? undefined)
        .catch(() => undefined);
      const big: ReadContext = {
        projectId: seededProject,
        from: new Date(Date.now() - 30 * 86_400_000).toISOString(),
        to: new Date(Date.now() + 3_600_000).toISOString(),
        email: person,
      };
      const assign = <K extends keyof ReadContext>(key: K, value: ReadContext[K] | undefined) => {
        if (value !== undefined) big[key] = value;
      };
      assign('messageId', idOf(mailerIds, 'messageId', 'message_id'));
      // The mailer's seed sends its messages as the emails welcome, receipt and reset-password.
      assign('emailKey', idOf(mailerIds, 'emailKey', 'email_key') ?? (mailerIds ? 'welcome' : undefined));
      assign('messagesUserId', idOf(mailerIds, 'userId', 'user_id'));
      assign('userId', idOf(userIds, 'user_id', 'userId'));
      assign('paymentUserId', idOf(paymentIds, 'user_id', 'userId'));
      assign('webhookId', idOf(dispatcherIds, 'webhookId', 'webhook_id'));
      assign('deliveryId', idOf(dispatcherIds, 'deliveryId', 'delivery_id'));
      assign('paymentEmail', paymentIds ? person : undefined);
      assign('messageCursor', bigCursor);
      progress(`the seeded project itself: ${options.requests} requests of each read`);
      const bigReads = await readPhase(big, false);
      seededProjectReads = bigReads.reads;
      seededProjectSkipped = bigReads.skipped;

      const personMessages = seeds.some((o) => o.service === 'mailer') ? options.sizes.personMessages : 0;
      progress(`erasing the person with ${personMessages} messages through the public API (waiting up to ${options.erasureTimeoutSec} s)`);
      erasure = await awaitErasure(await erase(seededProject, person), personMessages, options.erasureTimeoutSec);
      progress(
        erasure.completed
          ? `  completed ${((erasure.completedAfterMs ?? 0) / 1000).toFixed(1)} s after the request`
          : `  still "${erasure.lastStatus}" after ${options.erasureTimeoutSec} s`,
      );
    }

    const comparison = compareReads(readOrder, empty, seeded);
    const emptyP95 = empty.triggerToSink.latencyMs.p95;
    const seededP95 = seeded?.triggerToSink.latencyMs.p95 ?? null;
    const sinkRatio = seededP95 === null ? null : Math.round((seededP95 / Math.max(emptyP95, 1)) * 100) / 100;
    const sinkMet =
      seeded === null
        ? null
        : sinkRatio !== null && sinkRatio <= GOALS.sinkRatio && seeded.triggerToSink.matched === seeded.triggerToSink.triggers;
    const failures: string[] = [...seedFailures];
    for (const c of comparison) {
      if (c.met === false)
        failures.push(
          `${c.name}: ${c.seeded ? `seeded p95 ${c.seeded.p95} ms (${c.ratio}× empty)` : 'not measured after seeding'}${c.allAnswered ? '' : ', not every request answered 200'}`,
        );
    }
    for (const r of seededProjectReads) {
      if (r.ok === 0 || r.latencyMs.p95 > GOALS.readP95Ms || Object.keys(r.failures).length > 0)
        failures.push(`seeded project, ${r.name}: p95 ${r.latencyMs.p95} ms${r.firstFailure ? `, ${r.firstFailure}` : ''}`);
    }
    if (sinkMet === false) failures.push(`trigger -> sink: seeded p95 ${seededP95} ms, ${sinkRatio}× empty (${emptyP95} ms)`);
    if (erasure && !erasure.completed)
      failures.push(`the erasure of the person with ${erasure.personMessages} messages did not complete in ${erasure.timeoutSec} s`);
    const skippedNames = [...new Set([...empty.skipped, ...(seeded?.skipped ?? [])].map((r) => r.name))];
    const goals = [
      options.scale === 1 && missingSeeds.length === 0 && seeds.length > 0
        ? 'Sizes: the issue\u2019s default.'
        : `Sizes: scale ${options.scale}${missingSeeds.length > 0 ? `, without seeds for ${missingSeeds.join(', ')}` : ''}: not the issue\u2019s default run.`,
      `Reads of the measured project: ${comparison.filter((c) => c.met === true).length} met, ${comparison.filter((c) => c.met === false).length} missed` +
        `${skippedNames.length > 0 ? `, ${skippedNames.length} not measured (${skippedNames.join('; ')})` : ''}.`,
      `Trigger -> sink within ${GOALS.sinkRatio}× empty: ${sinkMet === null ? 'not measured' : sinkMet ? 'met' : 'missed'}.`,
      `Erasure completes: ${erasure === null ? 'not run' : erasure.completed ? 'met' : 'missed'}.`,
    ];

    const results: DataBenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: {
        scale: options.scale,
        sizes: options.sizes,
        requestsPerRead: options.requests,
        warmupPerRead: options.warmup,
        sinkRate: options.rate,
        sinkDurationSec: options.duration,
        queryAudit,
      },
      projects: { measured, seeded: seededProject },
      empty,
      seeds,
      missingSeeds,
      seedFailures,
      seeded,
      seededProjectReads,
      seededProjectSkipped,
      comparison,
      sink: { emptyP95, seededP95, ratio: sinkRatio, met: sinkMet },
      erasure,
      goals,
      failures,
      logs: run.logs(),
    };
    const markdown = formatMarkdown(results);
    console.log(`\n${markdown}`);
    for (const file of saveResults('data', results)) progress(`wrote ${file}`);
    const md = join(repoRoot, 'bench', 'results', 'data-latest.md');
    writeFileSync(md, markdown);
    progress(`wrote ${md}`);
    return failures.length === 0 && seeds.length > 0 ? 0 : 1;
  } finally {
    triggers?.close();
    reader?.close();
    await run.stopChildren();
    await new Promise((resolve) => receiver?.server.close(resolve) ?? resolve(undefined));
    await infra.close(keepData, progress);
  }
}

runBench('data bench', main);
