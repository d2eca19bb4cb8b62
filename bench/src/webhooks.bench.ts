/**
 * The webhook benchmark: deliveries/s and publish -> receiver latency through the webhook dispatcher (a
 * `message.sent` event on Kafka, stored as a delivery, claimed from the due queue, signed, POSTed, its attempt
 * recorded) against the same signed webhooks POSTed straight to the same receiver from a process of its own, with
 * the dispatcher's concurrency (WEBHOOK_CONCURRENCY) and keep-alive. Run with `npm run bench:webhooks` (or
 * `npm run bench`, after the gateway and mailer benchmarks). Results go to bench/results/webhooks-<timestamp>.json
 * and webhooks-latest.json.
 *   BENCH_WEBHOOKS=5000   webhooks of each run (direct and dispatcher)
 *   BENCH_PROFILE=webhook-dispatcher  write a V8 CPU profile of the dispatcher to .data/profiles/<run>/
 *   BENCH_KEEP_DATA=1     keep the run's topics, consumer groups and database (until the next `npm test`, which removes what finished runs left)
 *   BENCH_LOG_LEVEL=warn  the dispatcher's LOG_LEVEL (its log: .data/logs/<run>-webhook-dispatcher.log)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Bus, busOptions } from '@postbus/bus';
import { loadCommonConfig } from '@postbus/config';
import { catalogKey, Topics } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { freePort, internalAuthorization, repoRoot, sleep } from '@postbus/testing';
import { forkChild, profilerFor, startPostbusService, type Child } from './children';
import { envCount, envFlag } from './options';
import { BenchRun, runBench, saveResults } from './run';
import { infraPids, measureCpu, type CpuUsage } from './cpu';
import { DbCounters, type CommandCounts } from './db-counters';
import { RunInfrastructure } from './infra';
import { cpuLine, dbLine } from './mailer-report';
import { benchEnv, environment, type Environment } from './setup';
import { latencyOf, perSecond, type Latency } from './stats';
import type { WebhookDirectMessage, WebhookDirectOptions, WebhookDirectResult } from './webhook-direct';
import { messageIdOf, nowMs, sentEvent } from './webhook-events';
import type { ReceivedSample, ReceiverAnswer, ReceiverReport, ReceiverRequest } from './webhook-receiver';

const INTERNAL_API_SECRET = randomBytes(32).toString('hex');

/** The dispatcher's WEBHOOK_CONCURRENCY (its default), and the direct sender's requests in flight. */
const CONCURRENCY = 32;
const WARMUP = 200;
/** Deliveries read back from the dispatcher's delivery log. */
const LOG_SAMPLE = 50;
/** A run ends when the receiver has counted nothing new for this long. */
const STALL_MS = 30_000;
const STARTED = Date.now();
const logDir = join(repoRoot, '.data', 'logs');

const progress = (message: string) => console.log(`[webhooks ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(5)} s] ${message}`);
const lat = (l: Latency) => `p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms`;

/** The receiver process and its IPC control channel. */
class Receiver {
  private readonly waiting: Array<(answer: ReceiverAnswer) => void> = [];
  private exit: string | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.on('message', (answer: ReceiverAnswer) => this.waiting.shift()?.(answer));
    child.once('exit', (code, signal) => (this.exit = `exited with ${code ?? signal}`));
  }

  static async start(logName: string): Promise<{ receiver: Receiver; child: Child }> {
    const port = await freePort();
    mkdirSync(logDir, { recursive: true });
    const log = createWriteStream(join(logDir, `${logName}.log`), { flags: 'a' });
    const child = fork(join(__dirname, 'webhook-receiver.js'), [String(port)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(`exited with ${code ?? signal}`)));
    await Promise.race([
      new Promise<void>((resolve) => child.once('message', () => resolve())),
      exited.then((how) => Promise.reject(new Error(`the receiver ${how} during start-up (see .data/logs/${logName}.log)`))),
    ]);
    const receiver = new Receiver(child, `http://127.0.0.1:${port}/hooks`);
    return {
      receiver,
      child: {
        name: 'receiver',
        url: receiver.url,
        pid: child.pid,
        log: join(logDir, `${logName}.log`),
        exited,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        },
      },
    };
  }

  private ask<T extends ReceiverRequest['type']>(type: T): Promise<Extract<ReceiverAnswer, { type: T }>> {
    if (this.exit) return Promise.reject(new Error(`the receiver ${this.exit}`));
    return new Promise((resolve) => {
      this.waiting.push((answer) => resolve(answer as Extract<ReceiverAnswer, { type: T }>));
      this.child.send({ type } satisfies ReceiverRequest);
    });
  }

  count = () => this.ask('count');
  report = () => this.ask('report');
  reset = () => this.ask('reset');

  /** Waits until the receiver has `target` distinct webhook-ids, or counted nothing new for `stallMs`. */
  async waitFor(target: number, { stallMs = STALL_MS, signal }: { stallMs?: number; signal: AbortSignal }): Promise<number> {
    let last = -1;
    let lastChange = Date.now();
    let lastReport = Date.now();
    for (;;) {
      signal.throwIfAborted();
      const { distinct } = await this.count();
      if (distinct >= target) return distinct;
      if (distinct !== last) {
        last = distinct;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > stallMs) return distinct;
      if (Date.now() - lastReport >= 2_000) {
        progress(`  ${distinct}/${target} at the receiver`);
        lastReport = Date.now();
      }
      await sleep(20);
    }
  }
}

interface Run {
  webhooks: number;
  /** Distinct webhook-ids at the receiver. */
  received: number;
  requests: number;
  duplicates: number;
  /** First send (direct) or publish (dispatcher) → the last of them at the receiver. */
  spanMs: number;
  /** received / spanMs. */
  rate: number;
  /** Send (direct: request start; dispatcher: publish call) → arrival at the receiver, per webhook. */
  latencyMs: Latency;
  /** Distinct arrivals in each second after the first send. */
  arrivalsPerSecond: number[];
  /** Received requests whose Standard Webhooks signature verified, of those sampled. */
  signatures: { sampled: number; verified: number };
  receiverCpuMs: { user: number; system: number };
  cpu: CpuUsage | null;
}

interface DirectRun extends Run {
  client: Omit<WebhookDirectResult, 'startedAt'>;
}

interface DispatcherRun extends Run {
  /** First publish call → last publish acknowledged by Kafka. */
  publishMs: number;
  publishFailed: number;
  /** Commands the database server ran during the run, per delivery (the whole server's counters). */
  dbCommandsPerDelivery: CommandCounts | null;
}

interface LogCheck {
  /** GET .../deliveries?status=succeeded&limit=LOG_SAMPLE */
  succeededSampled: number;
  /** Of those, deliveries whose first attempt answered 200 and whose webhook-id reached the receiver. */
  consistent: number;
  failed: number;
  attemptLatencyMs: Latency;
  readMs: number;
  firstProblem: string | null;
}

interface WebhookBenchResults {
  timestamp: string;
  runId: string;
  environment: Environment;
  settings: { webhooks: number; concurrency: number; warmup: number };
  direct: DirectRun;
  dispatcher: DispatcherRun;
  deliveryLog: LogCheck;
  /** Dispatcher deliveries/s over direct POSTs/s. */
  ratio: number;
  logs: Record<string, string>;
  failures: string[];
  warnings: string[];
  ok: boolean;
}

/**
 * Checks the samples' Standard Webhooks signatures as a receiver would, except for the library's 5-minute
 * timestamp tolerance (the check runs after the run, which may be longer): the signature over
 * "id.timestamp.body" with the endpoint's secret must be one of those in webhook-signature.
 */
function verifySamples(samples: ReceivedSample[], secret: string): { sampled: number; verified: number } {
  const webhook = new Webhook(secret);
  let verified = 0;
  for (const { headers, body } of samples) {
    const id = headers['webhook-id'] ?? '';
    const timestamp = Number(headers['webhook-timestamp']);
    const expected = webhook.sign(id, new Date(timestamp * 1000), body);
    if (Number.isFinite(timestamp) && (headers['webhook-signature'] ?? '').split(' ').includes(expected)) verified++;
  }
  return { sampled: samples.length, verified };
}

/** Rate, span, latency and arrivals of a run from the receiver's report and each message's send time. */
function runOf(count: number, report: ReceiverReport, sentAt: Map<string, number>, secret: string, cpu: CpuUsage | null): Run {
  const first = Math.min(...sentAt.values());
  const latencies: number[] = [];
  let lastArrival = first;
  const perSecondBins: number[] = [];
  for (const [messageId, , at] of report.arrivals) {
    const sent = sentAt.get(messageId);
    if (sent === undefined) continue; // not of this run
    latencies.push(at - sent);
    lastArrival = Math.max(lastArrival, at);
    const bin = Math.max(0, Math.floor((at - first) / 1000));
    while (perSecondBins.length <= bin) perSecondBins.push(0);
    perSecondBins[bin]!++;
  }
  const spanMs = Math.round(lastArrival - first);
  return {
    webhooks: count,
    received: latencies.length,
    requests: report.requests,
    duplicates: report.duplicates,
    spanMs,
    rate: perSecond(latencies.length, lastArrival - first),
    latencyMs: latencyOf(latencies),
    arrivalsPerSecond: perSecondBins,
    signatures: verifySamples(report.samples, secret),
    receiverCpuMs: report.cpuMs,
    cpu,
  };
}

/** Forks the direct sender, lets it warm up, and measures its run against the (reset) receiver. */
async function runDirect(
  options: WebhookDirectOptions,
  logName: string,
  receiver: Receiver,
  watch: Record<string, number | undefined>,
  signal: AbortSignal,
): Promise<DirectRun> {
  const { child, next, close } = forkChild<WebhookDirectMessage>('webhook-direct.js', [JSON.stringify(options)], logName, signal);
  try {
    progress(`direct: ${options.warmup} warm-up webhooks`);
    const ready = await next();
    if (ready.type !== 'ready') throw new Error(`direct sender: unexpected ${ready.type}`);
    await receiver.reset();
    const cpu = measureCpu({ ...watch, direct: child.pid });
    progress(`direct: ${options.count} signed POSTs, ${options.concurrency} in flight, keep-alive`);
    child.send({ type: 'go' });
    const result = await next();
    const usage = cpu();
    if (result.type !== 'result') throw new Error(`direct sender: unexpected ${result.type}`);
    await receiver.waitFor(result.sent, { stallMs: 5_000, signal });
    const report = await receiver.report();
    const { type: _type, startedAt, ...client } = result;
    const sentAt = new Map<string, number>();
    startedAt.forEach((at, n) => at > 0 && sentAt.set(messageIdOf(options.tag, n), at));
    return { ...runOf(options.count, report, sentAt, options.secret, usage), client };
  } finally {
    await close();
  }
}

/** The dispatcher's internal API, called as the gateway calls it: with a token signed with the run's secret. */
async function api<T>(method: string, url: string, json?: unknown, expected = [200, 201]): Promise<T> {
  const headers: Record<string, string> = { authorization: await internalAuthorization('webhook-dispatcher', INTERNAL_API_SECRET) };
  if (json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
  const text = await res.text();
  if (!expected.includes(res.status)) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

interface DeliveryView {
  id: string;
  status: string;
  attempts: Array<{ attempt: number; status_code: number | null; latency_ms: number; outcome: string }>;
}

/** Reads a page of succeeded and of failed deliveries from the dispatcher's delivery log. */
async function checkLog(base: string, arrived: Set<string>): Promise<LogCheck> {
  const started = performance.now();
  const succeeded = await api<{ data: DeliveryView[] }>('GET', `${base}/deliveries?status=succeeded&limit=${LOG_SAMPLE}`);
  const readMs = Math.round(performance.now() - started);
  const failed = await api<{ data: DeliveryView[] }>('GET', `${base}/deliveries?status=failed&limit=${LOG_SAMPLE}`);
  let consistent = 0;
  let firstProblem: string | null = null;
  for (const d of succeeded.data) {
    const first = d.attempts[0];
    if (d.status === 'succeeded' && first?.status_code === 200 && arrived.has(d.id)) consistent++;
    else firstProblem ??= `delivery ${d.id}: ${JSON.stringify(d)}`;
  }
  return {
    succeededSampled: succeeded.data.length,
    consistent,
    failed: failed.data.length,
    attemptLatencyMs: latencyOf(succeeded.data.flatMap((d) => d.attempts.map((a) => a.latency_ms))),
    readMs,
    firstProblem,
  };
}

/** Retries what fails for up to 30 s (a broker started a moment ago). */
async function retry<T>(what: string, work: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      progress(`${what} failed (${error instanceof Error ? error.message : String(error)}); retrying`);
      await sleep(1_000);
    }
  }
}

const ratioOf = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function formatReport(r: WebhookBenchResults): string {
  const row = (name: string, run: Run, what: string) => [
    name,
    run.rate.toFixed(1),
    run.latencyMs.p50.toFixed(1),
    run.latencyMs.p99.toFixed(1),
    run.latencyMs.max.toFixed(1),
    `${run.received}/${run.webhooks}`,
    what,
  ];
  const cpu = (name: string, run: Run) => `  ${name}: ${cpuLine(run.cpu)}`;
  return [
    `Signed webhooks (Standard Webhooks, message.sent) to one node:http receiver: ${r.settings.webhooks} each way, ` +
      `${r.settings.concurrency} in flight, after ${r.settings.warmup} warm-up webhooks`,
    '',
    table(
      ['run', 'deliveries/s', 'p50 ms', 'p99 ms', 'max ms', 'received', 'latency of'],
      [
        row('direct POSTs', r.direct, 'request start -> receiver'),
        row('dispatcher', r.dispatcher, 'publish -> receiver (all published at once)'),
      ],
    ),
    '',
    `ratio dispatcher / direct: ${r.ratio}`,
    `direct round trip ${lat(r.direct.client.latencyMs)}; dispatcher: ${r.dispatcher.webhooks} published in ${r.dispatcher.publishMs} ms`,
    `delivery log: ${r.deliveryLog.consistent}/${r.deliveryLog.succeededSampled} sampled succeeded deliveries consistent, ` +
      `${r.deliveryLog.failed} failed; recorded attempt ${lat(r.deliveryLog.attemptLatencyMs)}`,
    'CPU (cores in use on average):',
    cpu('direct', r.direct),
    cpu('dispatcher', r.dispatcher),
    `database commands per delivery: ${dbLine(r.dispatcher.dbCommandsPerDelivery)}`,
    ...(r.failures.length > 0 ? ['', 'FAILURES:', ...r.failures.map((f) => `  - ${f}`)] : []),
    ...(r.warnings.length > 0 ? ['', 'warnings:', ...r.warnings.map((w) => `  - ${w}`)] : []),
  ].join('\n');
}

function failuresOf(direct: DirectRun, dispatcher: DispatcherRun, log: LogCheck): string[] {
  const failures: string[] = [];
  if (direct.client.failed > 0) failures.push(`direct: ${direct.client.failed} POSTs failed: ${direct.client.firstError}`);
  for (const [name, run] of [
    ['direct', direct],
    ['dispatcher', dispatcher],
  ] as const) {
    if (run.received < run.webhooks) failures.push(`${name}: ${run.received} of ${run.webhooks} webhooks reached the receiver`);
    if (run.signatures.verified < run.signatures.sampled)
      failures.push(
        `${name}: ${run.signatures.sampled - run.signatures.verified} of ${run.signatures.sampled} sampled signatures did not verify`,
      );
  }
  if (dispatcher.publishFailed > 0) failures.push(`dispatcher: ${dispatcher.publishFailed} publishes failed`);
  if (log.consistent < log.succeededSampled) failures.push(`delivery log: ${log.firstProblem}`);
  if (log.succeededSampled === 0) failures.push('delivery log: no succeeded delivery listed');
  if (log.failed > 0) failures.push(`delivery log: ${log.failed} failed deliveries`);
  return failures;
}

function warningsOf(direct: DirectRun, dispatcher: DispatcherRun): string[] {
  const warnings: string[] = [];
  for (const [name, run] of [
    ['direct', direct],
    ['dispatcher', dispatcher],
  ] as const) {
    if (run.duplicates > 0) warnings.push(`${name}: ${run.duplicates} requests repeated a webhook-id (retries)`);
    if (run.cpu && run.cpu.other >= 0.25) warnings.push(`${name}: other processes used ${run.cpu.other} of ${run.cpu.cores} cores`);
  }
  return warnings;
}

async function main(): Promise<number> {
  const count = envCount('BENCH_WEBHOOKS', 5000);
  const keepData = envFlag('BENCH_KEEP_DATA');
  const infra = new RunInfrastructure('wbench', ['webhook-dispatcher'], ['postbus-webhooks', 'postbus-webhooks-projects']);
  const { runId } = infra;

  const run = new BenchRun(progress);
  const { signal, watch, started } = run;
  let bus: Bus | undefined;
  let dbCounters: DbCounters | undefined;
  try {
    progress(`run ${runId}: ${count} webhooks each way; checking Kafka and MongoDB`);
    await infra.ensure();
    Object.assign(watch, infraPids());
    dbCounters = await DbCounters.open(infra.mongoUrl);

    const { receiver, child: receiverChild } = await Receiver.start(`${runId}-receiver`);
    started(receiverChild);
    progress(`receiver on ${receiver.url}`);

    // The publisher as the mailer has it: the bus library, the run's namespace, the services' default settings.
    bus = new Bus({
      ...busOptions(loadCommonConfig({ KAFKA_BROKERS: infra.brokers, KAFKA_NAMESPACE: runId })),
      service: 'postbus/bench',
      logger: createLogger({ service: 'bench', level: 'warn' }),
    });
    const b = bus;
    const publisher = b.publisher;
    // The dispatcher's topics, made here first: on a broker started a moment ago, creating topics can fail with
    // "This server does not host this topic-partition", and a service whose start-up fails so exits.
    await retry("creating the run's topics", () =>
      b.ensureTopics([{ topic: Topics.Catalog, compacted: true }, { topic: Topics.EmailEvents }, { topic: Topics.UserEvents }]),
    );
    await publisher.connect();

    const port = await freePort();
    const env = benchEnv({
      namespace: runId,
      ports: { 'webhook-dispatcher': port },
      secrets: { INTERNAL_API_SECRET },
      overrides: {
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
      },
    });
    progress('starting webhook-dispatcher');
    const dispatcher = started(
      await startPostbusService('webhook-dispatcher', port, profilerFor(runId)('webhook-dispatcher', env), `${runId}-webhook-dispatcher`),
    );
    signal.throwIfAborted();

    const clientId = `cli_bench_${randomBytes(6).toString('hex')}`;
    const projectId = `prj_bench_${randomBytes(6).toString('hex')}`;
    const webhooksUrl = `${dispatcher.url}/internal/clients/${clientId}/webhooks`;
    const endpoint = await api<{ id: string; secret: string }>('POST', webhooksUrl, { url: receiver.url, events: ['*'] }, [201]);
    await publisher.publish(
      Topics.Catalog,
      'catalog.project',
      catalogKey('project', projectId),
      {
        id: projectId,
        clientId,
        revision: Date.now(),
        name: 'bench',
        fromEmail: null,
        fromName: null,
        replyTo: null,
        senderDomainId: null,
        trackingDomainId: null,
      },
      { id: `${runId}-project` },
    );
    progress(`endpoint ${endpoint.id} of ${clientId} for all events, project ${projectId} published to the catalog`);

    const publishAll = async (tag: string, n: number) => {
      const sentAt = new Map<string, number>();
      let failed = 0;
      const writes: Array<Promise<unknown>> = [];
      for (let i = 0; i < n; i++) {
        const messageId = messageIdOf(tag, i);
        const at = nowMs();
        sentAt.set(messageId, at);
        writes.push(
          publisher
            .publish(Topics.EmailEvents, 'message.sent', messageId, sentEvent(tag, projectId, i, new Date(at)), { id: `${tag}-evt-${i}` })
            .catch(() => failed++),
        );
      }
      await Promise.all(writes);
      return { sentAt, failed, doneAt: nowMs() };
    };

    // Warm-up: the first event waits for the project to reach the dispatcher's projection; the rest warm every path.
    await receiver.reset();
    const warmStart = Date.now();
    await publishAll(`${runId}-warmup`, WARMUP);
    const warmed = await receiver.waitFor(WARMUP, { stallMs: 60_000, signal });
    if (warmed < WARMUP) throw new Error(`warm-up: ${warmed} of ${WARMUP} webhooks reached the receiver (see ${dispatcher.log})`);
    progress(`warm-up: ${WARMUP} webhooks through the dispatcher in ${Date.now() - warmStart} ms`);
    await sleep(1_000);

    // 1. The baseline.
    const direct = await runDirect(
      {
        url: receiver.url,
        secret: endpoint.secret,
        projectId,
        tag: `${runId}-direct`,
        warmup: WARMUP,
        count,
        concurrency: CONCURRENCY,
      },
      `${runId}-direct`,
      receiver,
      watch,
      signal,
    );
    progress(
      `direct: ${direct.rate} POSTs/s (${direct.received} in ${direct.spanMs} ms), request -> receiver ${lat(direct.latencyMs)}; ${cpuLine(direct.cpu)}`,
    );
    await receiver.reset();
    await sleep(1_000);

    // 2. The dispatcher.
    progress(`dispatcher: publishing ${count} message.sent events, then waiting for the receiver`);
    const db = await dbCounters.measure();
    const cpu = measureCpu(watch);
    const tag = `${runId}-dispatcher`;
    const published = await publishAll(tag, count);
    const firstPublish = Math.min(...published.sentAt.values());
    progress(`dispatcher: ${count - published.failed} events acknowledged by Kafka in ${Math.round(published.doneAt - firstPublish)} ms`);
    await receiver.waitFor(count, { signal });
    const usage = cpu();
    const dbCommands = await db(count);
    const report = await receiver.report();
    const dispatcherRun: DispatcherRun = {
      ...runOf(count, report, published.sentAt, endpoint.secret, usage),
      publishMs: Math.round(published.doneAt - firstPublish),
      publishFailed: published.failed,
      dbCommandsPerDelivery: dbCommands,
    };
    progress(
      `dispatcher: ${dispatcherRun.rate} deliveries/s (${dispatcherRun.received} in ${dispatcherRun.spanMs} ms), publish -> receiver ${lat(dispatcherRun.latencyMs)}; ${cpuLine(usage)}`,
    );
    progress(`dispatcher: at the receiver, by second after the first publish: ${dispatcherRun.arrivalsPerSecond.join(' ')}`);
    progress(`dispatcher: database commands per delivery ${dbLine(dbCommands)}`);
    progress(`dispatcher: ratio to direct ${ratioOf(dispatcherRun.rate, direct.rate)}`);

    // 3. The delivery log.
    const deliveryLog = await checkLog(`${webhooksUrl}/${endpoint.id}`, new Set(report.arrivals.map(([, id]) => id)));
    progress(
      `delivery log: ${deliveryLog.consistent}/${deliveryLog.succeededSampled} sampled succeeded deliveries consistent, ${deliveryLog.failed} failed, read in ${deliveryLog.readMs} ms`,
    );

    const failures = failuresOf(direct, dispatcherRun, deliveryLog);
    const results: WebhookBenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: { webhooks: count, concurrency: CONCURRENCY, warmup: WARMUP },
      direct,
      dispatcher: dispatcherRun,
      deliveryLog,
      ratio: ratioOf(dispatcherRun.rate, direct.rate),
      logs: run.logs(),
      failures,
      warnings: warningsOf(direct, dispatcherRun),
      ok: failures.length === 0,
    };
    console.log(`\n${formatReport(results)}\n`);
    for (const file of saveResults('webhooks', results)) progress(`wrote ${file}`);
    return results.ok ? 0 : 1;
  } finally {
    await bus?.close().catch((error: unknown) => progress(`could not close the publisher: ${String(error)}`));
    await run.stopChildren();
    await dbCounters?.close().catch(() => undefined);
    await infra.close(keepData, progress);
  }
}

runBench('webhooks bench', main);
