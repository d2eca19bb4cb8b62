/**
 * The mailer benchmark (issue 5): triggers/s and trigger -> sink latency through Postbus (gateway, Kafka, mailer:
 * rendered, DKIM-signed, status durably recorded) against nodemailer sending the same signed messages straight to
 * the same SMTP sink from a process of its own. Run with `npm run bench:mailer` (or `npm run bench`, after the
 * gateway benchmark). Results go to bench/results/mailer-<timestamp>.json and mailer-latest.json.
 *   BENCH_MAILS=3000      messages of each throughput run (direct and Postbus)
 *   BENCH_RATE=n         triggers a second of the paced latency run (default: a third of the direct rate just measured)
 *   BENCH_SCALE_OUT=0     skip the run with a second mailer and a second users service
 *   BENCH_ATTACHMENT=0    skip the closed loop with a 100 KB attachment on every send
 *   BENCH_BATCH_MAILS=n   messages of each run of the batch comparison (default: BENCH_MAILS): n through
 *                         POST …/emails/batch in batches of 500, against n single sends right before
 *   BENCH_BATCH=0         skip the batch comparison
 *   BENCH_DURATION=10     seconds of the paced run
 *   BENCH_DIRECT_KEY=pem  give the direct sender its DKIM key as PEM text (parsed at every signature) rather than
 *                         as a KeyObject parsed once (the default, as Postbus holds its keys)
 *   BENCH_KEEP_DATA=1     keep the run's topics, consumer groups and databases (until the next `npm test`, which removes what finished runs left)
 *   BENCH_REPEATS=3       repeats of the direct, closed-loop and paced runs; their median is compared with the
 *                         baseline in bench/results/baseline.json, and a rise past its limits fails the run
 *   BENCH_ACCEPT_BASELINE=1  accept this run's median as the new baseline (see bench/README.md)
 *   BENCH_PROFILE=mailer  also write V8 CPU profiles of these processes (comma-separated: gateway, users, mailer,
 *                         direct) to .data/profiles/<run>/
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SEND_BATCH_MAX } from '@postbus/contracts';
import { call, freePort, sleep, type SinkClient } from '@postbus/testing';
import { forkChild, profilerFor, startPostbusService } from './children';
import { envCount, envFlag, envOptionalNumber, envSeconds } from './options';
import { BenchRun, resultsDir, runBench, saveResults } from './run';
import { infraPids, measureCpu } from './cpu';
import { DbCounters } from './db-counters';
import { acceptBaseline, checkAgainst, figuresOf, formatCheck, readBaselines, type SendPathFigures } from './mailer-baseline';
import type { DirectMessage, DirectOptions } from './direct-sender';
import { RunInfrastructure } from './infra';
import { SENDER_DOMAIN } from './mail-template';
import {
  cpuPerMail,
  failuresOf,
  formatMarkdown,
  formatReport,
  goalsAndRatio,
  PACED_SHARE_OF_DIRECT,
  warningsOf,
  cpuLine,
  dbLine,
  type DeliveryCheck,
  type BatchResult,
  type DirectPhase,
  type MailerBenchResults,
  type PacedResult,
  type RecordCheck,
  type ScaleOutResult,
  type ThroughputResult,
} from './mailer-report';
import { benchEnv, createSendingProject, environment, UNTHROTTLED } from './setup';
import { latencyOf, perSecond, spread } from './stats';
import { firstTriggerAtSink, matchDeliveries, readSink, TriggerClient, waitForSinkCount, type Trigger } from './triggers';

const IN_FLIGHT = 64;
/**
 * Batches of the batch run in flight: while the gateway checks and queues one, the next is on its way. A client
 * backend sending a few thousand receipts would send its batches one or two at a time, not 64.
 */
const BATCHES_IN_FLIGHT = 2;
const WARMUP = 200;
/** The mailer's default SMTP_POOL_CONNECTIONS, and the direct sender's maxConnections. */
const SMTP_POOL = 8;
/** Messages of each Postbus run read back through the API (each read costs the mailer a few collection scans on FerretDB). */
const RECORD_SAMPLE = 25;
const STARTED = Date.now();

const progress = (message: string) => console.log(`[mailer ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(5)} s] ${message}`);

const lat = (l: { p50: number; p99: number; max: number }) => `p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms`;

function deliveryCheck(triggers: readonly Trigger[], matched: ReturnType<typeof matchDeliveries>): DeliveryCheck {
  const statusCodes: Record<string, number> = {};
  for (const t of triggers) statusCodes[String(t.status)] = (statusCodes[String(t.status)] ?? 0) + 1;
  return {
    triggers: triggers.length,
    accepted: matched.accepted,
    refused: triggers.length - matched.accepted,
    statusCodes,
    firstError: triggers.find((t) => t.error !== undefined)?.error ?? null,
    arrived: matched.arrived,
    matched: matched.matched,
    missing: matched.missing,
    duplicates: matched.duplicates,
    strangers: matched.strangers,
  };
}

/** Forks the direct sender, lets it warm up, and measures its run (the sink emptied of the warm-up first). */
async function runDirect(
  options: DirectOptions,
  logName: string,
  sink: SinkClient,
  watch: Record<string, number | undefined>,
  signal: AbortSignal,
  env: Record<string, string> = {},
): Promise<DirectPhase> {
  const { child, next, close } = forkChild<DirectMessage>('direct-sender.js', [JSON.stringify(options)], logName, signal, env);
  try {
    progress(`direct: key generation and ${options.warmup} warm-up messages`);
    const ready = await next();
    if (ready.type !== 'ready') throw new Error(`direct sender: unexpected ${ready.type}`);
    await sink.clear();
    const cpu = measureCpu({ ...watch, 'direct-sender': child.pid });
    progress(
      `direct: ${options.count} messages, ${options.concurrency} in flight, pool of ${options.maxConnections}, key as ${options.key}`,
    );
    child.send({ type: 'go' });
    const result = await next();
    const usage = cpu();
    if (result.type !== 'result') throw new Error(`direct sender: unexpected ${result.type}`);
    const { type: _type, ...figures } = result;
    const atSink = await waitForSinkCount(sink, figures.sent, { stallMs: 5_000, signal });
    return {
      ...figures,
      mails: options.count,
      inFlight: options.concurrency,
      maxConnections: options.maxConnections,
      key: options.key,
      atSink,
      cpu: usage,
      cpuPerMailMs: cpuPerMail(usage, atSink),
    };
  } finally {
    await close();
  }
}

/** Reads a sample of the run's messages through the public API until they read `sent` (a few seconds at most). */
async function checkRecords(gatewayUrl: string, authorization: string, projectId: string, messageIds: string[]): Promise<RecordCheck> {
  const statuses: Record<string, number> = {};
  const reads: number[] = [];
  let sent = 0;
  let sentLate = 0;
  for (const id of messageIds) {
    let status = 'unreadable';
    for (let attempt = 0; attempt < 25; attempt++) {
      const started = performance.now();
      const res = await call(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${id}`, { auth: authorization });
      reads.push(performance.now() - started);
      status = res.status === 200 && typeof res.body?.status === 'string' ? (res.body.status as string) : `HTTP ${res.status}`;
      if (status === 'sent') {
        sent++;
        if (attempt > 0) sentLate++;
        break;
      }
      await sleep(200);
    }
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return { sampled: messageIds.length, sent, statuses, sentLate, readLatencyMs: latencyOf(reads) };
}

async function main(): Promise<number> {
  const mails = envCount('BENCH_MAILS', 3000);
  const pacedRateAsked = envOptionalNumber('BENCH_RATE', 'number of triggers a second');
  const scaleOut = process.env['BENCH_SCALE_OUT'] !== '0';
  const pacedDurationSec = envSeconds('BENCH_DURATION', 10);
  const keepData = envFlag('BENCH_KEEP_DATA');
  const directKey = process.env['BENCH_DIRECT_KEY'] === 'pem' ? 'pem' : 'keyobject';
  const batchMails = process.env['BENCH_BATCH'] === '0' ? 0 : envCount('BENCH_BATCH_MAILS', mails);
  const repeats = envCount('BENCH_REPEATS', 3);
  const acceptingBaseline = envFlag('BENCH_ACCEPT_BASELINE');
  const infra = new RunInfrastructure(
    'mbench',
    ['gateway', 'users', 'mailer'],
    ['postbus-mailer-projections', 'postbus-mailer-feedback', 'postbus-mailer-triggers', 'postbus-mailer-bulk'],
  );
  const { runId } = infra;

  const run = new BenchRun(progress);
  const { signal, watch, started } = run;
  let triggers: TriggerClient | undefined;
  let dbCounters: DbCounters | undefined;
  try {
    progress(
      `run ${runId}: ${mails} mails each way` +
        `${batchMails > 0 ? `, ${batchMails} in batches of ${SEND_BATCH_MAX} against as many single sends` : ''}` +
        `, then ${pacedRateAsked ?? 'a third of the direct rate in'} triggers/s for ${pacedDurationSec} s` +
        `${scaleOut ? ', then 2 mailers and 2 users services' : ''}; checking Kafka and MongoDB`,
    );
    await infra.ensure();
    Object.assign(watch, infraPids());
    dbCounters = await DbCounters.open(infra.mongoUrl);
    const counters = dbCounters;

    const { dns, sink } = await infra.startMailStandIns(run);
    progress(`SMTP sink on ${sink.smtpUrl} (API ${sink.httpUrl}), DNS server on ${dns.address}`);

    const [gatewayPort, usersPort, mailerPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const env = benchEnv({
      namespace: runId,
      ports: { gateway: gatewayPort, users: usersPort, mailer: mailerPort },
      smtpUrl: sink.smtpUrl,
      dnsServers: dns.address,
      overrides: { ...UNTHROTTLED, KAFKA_TOPIC_PARTITIONS: '6' },
    });
    const profile = profilerFor(runId);
    const envOf = (name: string, base = env) => profile(name, base);
    // One after the other: started side by side, both create the run's new topics at once, and the loser of that
    // race has been seen to exit ("This server does not host this topic-partition").
    progress('starting users');
    started(await startPostbusService('users', usersPort, envOf('users'), `${runId}-users`));
    progress('starting mailer');
    started(await startPostbusService('mailer', mailerPort, envOf('mailer'), `${runId}-mailer`));
    progress('starting gateway');
    const gateway = started(await startPostbusService('gateway', gatewayPort, envOf('gateway'), `${runId}-gateway`));
    signal.throwIfAborted();

    const { authorization, projectId, email } = await createSendingProject(env, gateway.url, dns);
    progress(`project ${projectId}: sender domain ${email.domain} verified, email "${email.emailKey}" ready`);

    triggers = new TriggerClient({ gatewayUrl: gateway.url, projectId, emailKey: email.emailKey, authorization, connections: IN_FLIGHT });
    const client = triggers;

    // Warm-up: the first trigger waits for the catalog to reach the mailer; the rest warm every path up.
    const first = await firstTriggerAtSink(client, sink.client, `${runId}-first`, signal);
    progress(`first message at the sink ${Date.now() - first.sentAt} ms after its trigger; warm-up ${WARMUP} triggers`);
    await client.closedLoop(`${runId}-warmup`, WARMUP, IN_FLIGHT, signal);
    const warmed = await waitForSinkCount(sink.client, WARMUP + 1, { stallMs: 15_000, signal });
    if (warmed < WARMUP + 1) throw new Error(`warm-up: ${warmed - 1} of ${WARMUP} messages reached the sink`);
    await sleep(1_000);

    // Postbus, closed loop: `count` single sends, IN_FLIGHT at a time, or in batches of `batchSize`,
    // BATCHES_IN_FLIGHT at a time.
    const closedLoopOf = async (
      client: TriggerClient,
      direct: DirectPhase,
      label: string,
      tag: string,
      { count = mails, batchSize }: { count?: number; batchSize?: number } = {},
    ): Promise<{ result: ThroughputResult; triggers: Trigger[] }> => {
      const inFlight = batchSize ? BATCHES_IN_FLIGHT : IN_FLIGHT;
      progress(
        `${label}: ${count} ${batchSize ? `mails in batches of ${batchSize}, ${inFlight} batches` : `triggers, ${inFlight}`} in flight, ` +
          'until all are at the sink',
      );
      const db = await counters.measure();
      const cpu = measureCpu(watch);
      const fired = batchSize
        ? await client.batchedLoop(tag, count, batchSize, inFlight, signal)
        : await client.closedLoop(tag, count, inFlight, signal);
      const accepted = fired.filter((t) => t.messageId !== null).length;
      const acceptSpan = Math.max(...fired.map((t) => t.answeredAt)) - Math.min(...fired.map((t) => t.sentAt));
      progress(`${label}: ${accepted} accepted in ${acceptSpan} ms (${perSecond(accepted, acceptSpan)}/s); waiting for the sink`);
      await waitForSinkCount(sink.client, accepted, { signal, onProgress: (n) => progress(`  ${n}/${accepted} at the sink`) });
      const usage = cpu();
      const dbCommands = await db(accepted);
      const match = matchDeliveries(fired, await readSink(sink.client), SENDER_DOMAIN);
      const result: ThroughputResult = {
        mails: count,
        inFlight,
        ...(batchSize ? { batchSize } : {}),
        rate: perSecond(match.matched, match.spanMs),
        spanMs: match.spanMs,
        acceptRate: perSecond(accepted, acceptSpan),
        acceptSpanMs: acceptSpan,
        httpLatencyMs: latencyOf(fired.map((t) => t.answeredAt - t.sentAt)),
        sinkLatencyMs: latencyOf(match.latencies),
        delivery: deliveryCheck(fired, match),
        arrivalsPerSecond: match.perSecond,
        cpu: usage,
        cpuPerMailMs: cpuPerMail(usage, match.matched),
        dbCommandsPerMessage: dbCommands,
      };
      progress(
        `${label}: ${result.rate} triggers/s to the sink (${match.matched} in ${match.spanMs} ms), trigger -> sink ${lat(result.sinkLatencyMs)}; ${cpuLine(usage)}`,
      );
      progress(`${label}: CPU ms per mail ${result.cpuPerMailMs?.total ?? '?'} (direct ${direct.cpuPerMailMs?.total ?? '?'})`);
      progress(`${label}: at the sink, by second after the first trigger: ${match.perSecond.join(' ')}`);
      progress(`${label}: database commands per message ${dbLine(dbCommands)}`);
      progress(`${label}: ratio to direct ${(result.rate / Math.max(direct.rate, 1e-9)).toFixed(3)}`);
      return { result, triggers: fired };
    };

    // Direct, closed loop and paced, `repeats` times; the attachment and batch runs once, in the first.
    const sendPath: SendPathFigures[] = [];
    let last: {
      direct: DirectPhase;
      throughput: ThroughputResult;
      tpTriggers: Trigger[];
      paced: PacedResult;
      pacedTriggers: Trigger[];
      pacedRate: number;
    } | null = null;
    let attachment: MailerBenchResults['attachment'];
    let batch: BatchResult | undefined;
    let batchSample: string[] = [];
    let firstPacedRate: number | undefined;
    for (let repeat = 1; repeat <= repeats; repeat++) {
      if (repeats > 1) progress(`repeat ${repeat} of ${repeats}`);
      // 1. The baseline.
      await sink.client.clear();
      const direct = await runDirect(
        {
          smtpUrl: sink.smtpUrl,
          warmup: WARMUP,
          count: mails,
          concurrency: IN_FLIGHT,
          maxConnections: SMTP_POOL,
          tag: `${runId}-direct`,
          key: directKey,
          publicBaseUrl: env['PUBLIC_BASE_URL']!,
        },
        `${runId}-direct`,
        sink.client,
        watch,
        signal,
        envOf('direct', {}),
      );
      progress(
        `direct: ${direct.rate} mails/s (${direct.sent} in ${direct.durationMs} ms), ${lat(direct.latencyMs)}; ${cpuLine(direct.cpu)}`,
      );
      await sink.client.clear();
      await sleep(1_000);

      // 2. Postbus, closed loop.
      // Each repeat to recipients of its own: a recipient the users service knows already takes
      // another path (a lookup, not a registration), which a repeat must not silently measure instead.
      const { result: throughput, triggers: tpTriggers } = await closedLoopOf(client, direct, 'Postbus', `${runId}-tp-${repeat}`);
      // 2b. The same with a 100 KB attachment on every send (BENCH_ATTACHMENT=0 leaves it out): what a
      // file costs the gateway's check, its storage with the mailer and the MIME message, per mail.
      if (repeat === 1 && process.env['BENCH_ATTACHMENT'] !== '0') {
        await sleep(2_000);
        await sink.client.clear();
        const bytes = 100 * 1024;
        const file = {
          filename: 'bench.pdf',
          content: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(bytes - 9)]).toString('base64'),
        };
        const withFile = new TriggerClient({
          gatewayUrl: gateway.url,
          projectId,
          emailKey: email.emailKey,
          authorization,
          connections: IN_FLIGHT,
          extra: { attachments: [file] },
        });
        try {
          const runWith = await closedLoopOf(withFile, direct, 'Postbus, 100 KB attachment', `${runId}-att`);
          const plain = throughput.cpuPerMailMs?.total;
          const withIt = runWith.result.cpuPerMailMs?.total;
          attachment = {
            bytes,
            throughput: runWith.result,
            cpuRatio: plain && withIt ? Math.round((withIt / plain) * 1000) / 1000 : null,
          };
          progress(
            `Postbus, 100 KB attachment: CPU per mail ${withIt ?? '?'} ms against ${plain ?? '?'} ms without (x${attachment.cpuRatio ?? '?'})`,
          );
        } finally {
          withFile.close();
        }
      }
      // 2c. The same mails through 500-item batches against single sends, run one right after the other
      // (BENCH_BATCH=0 leaves it out): what one request and one produce request for 500 mails save.
      if (repeat === 1 && batchMails > 0) {
        await sleep(2_000);
        await sink.client.clear();
        const { result: single } = await closedLoopOf(client, direct, 'Postbus, single sends', `${runId}-single`, { count: batchMails });
        await sleep(2_000);
        await sink.client.clear();
        const { result: batched, triggers: batchTriggers } = await closedLoopOf(
          client,
          direct,
          `Postbus, batches of ${SEND_BATCH_MAX}`,
          `${runId}-batch`,
          { count: batchMails, batchSize: SEND_BATCH_MAX },
        );
        const plain = single.cpuPerMailMs?.total;
        const inBatches = batched.cpuPerMailMs?.total;
        batch = {
          batchSize: SEND_BATCH_MAX,
          batchesInFlight: BATCHES_IN_FLIGHT,
          single,
          batch: batched,
          rateRatio: Math.round((batched.rate / Math.max(single.rate, 1e-9)) * 1000) / 1000,
          cpuRatio: plain && inBatches ? Math.round((inBatches / plain) * 1000) / 1000 : null,
        };
        batchSample = spread(
          batchTriggers.flatMap((t) => (t.messageId ? [t.messageId] : [])),
          RECORD_SAMPLE,
        );
        progress(
          `Postbus, batches of ${SEND_BATCH_MAX}: ${batched.rate} mails/s to the sink against ${single.rate} through single sends ` +
            `(x${batch.rateRatio}); CPU per mail ${inBatches ?? '?'} ms against ${plain ?? '?'} ms (x${batch.cpuRatio ?? '?'})`,
        );
      }
      await sleep(2_000);
      await sink.client.clear();

      // 3. Postbus, paced at a third of what the direct sender just did, so a slow day does not fail the goal by itself.
      // Every repeat at the first one's rate, so that their p99s are comparable.
      const pacedRate = (firstPacedRate ??= pacedRateAsked ?? Math.max(1, Math.round(direct.rate * PACED_SHARE_OF_DIRECT)));
      progress(`Postbus: ${pacedRate} triggers/s for ${pacedDurationSec} s`);
      const pacedDb = await counters.measure();
      const pacedCpu = measureCpu(watch);
      const pacedTriggers = await client.paced(`${runId}-paced-${repeat}`, pacedRate, pacedDurationSec, signal);
      const pacedAccepted = pacedTriggers.filter((t) => t.messageId !== null).length;
      await waitForSinkCount(sink.client, pacedAccepted, { signal, onProgress: (n) => progress(`  ${n}/${pacedAccepted} at the sink`) });
      const pacedUsage = pacedCpu();
      const pacedDbCommands = await pacedDb(pacedAccepted);
      const pacedMatch = matchDeliveries(pacedTriggers, await readSink(sink.client), SENDER_DOMAIN);
      const sentSpan = Math.max(...pacedTriggers.map((t) => t.sentAt)) - Math.min(...pacedTriggers.map((t) => t.sentAt));
      const paced: PacedResult = {
        targetRate: pacedRate,
        durationSec: pacedDurationSec,
        sentRate: perSecond(Math.max(0, pacedTriggers.length - 1), sentSpan),
        lateMs: latencyOf(pacedTriggers.map((t) => t.sentAt - t.dueAt)),
        httpLatencyMs: latencyOf(pacedTriggers.map((t) => t.answeredAt - t.sentAt)),
        sinkLatencyMs: latencyOf(pacedMatch.latencies),
        delivery: deliveryCheck(pacedTriggers, pacedMatch),
        arrivalsPerSecond: pacedMatch.perSecond,
        cpu: pacedUsage,
        cpuPerMailMs: cpuPerMail(pacedUsage, pacedMatch.matched),
        dbCommandsPerMessage: pacedDbCommands,
      };
      progress(
        `Postbus paced: ${paced.sentRate} triggers/s sent, trigger -> sink ${lat(paced.sinkLatencyMs)}, ${pacedMatch.matched}/${pacedAccepted} at the sink, ` +
          `${pacedMatch.duplicates} duplicates; ${cpuLine(pacedUsage)}`,
      );

      progress(`Postbus paced: at the sink, by second after the first trigger: ${pacedMatch.perSecond.join(' ')}`);
      progress(`Postbus paced: database commands per message ${dbLine(pacedDbCommands)}`);
      if (direct.cpuPerMailMs && throughput.cpuPerMailMs && paced.sinkLatencyMs.count > 0)
        sendPath.push(
          figuresOf(
            { cpuPerMailMs: direct.cpuPerMailMs.total, p99Ms: direct.latencyMs.p99, rate: direct.rate },
            { cpuPerMailMs: throughput.cpuPerMailMs.total, rate: throughput.rate },
            paced.sinkLatencyMs.p99,
          ),
        );
      last = { direct, throughput, tpTriggers, paced, pacedTriggers, pacedRate };
      if (repeat < repeats) {
        await sleep(2_000);
        await sink.client.clear();
      }
    }
    if (!last) throw new Error('BENCH_REPEATS is 0: nothing was measured');
    const { direct, throughput, tpTriggers, paced, pacedTriggers, pacedRate } = last;
    const tpSample = spread(
      tpTriggers.flatMap((t) => (t.messageId ? [t.messageId] : [])),
      RECORD_SAMPLE,
    );

    // 4. The records.
    const sample = [
      ...tpSample,
      ...batchSample,
      ...spread(
        pacedTriggers.flatMap((t) => (t.messageId ? [t.messageId] : [])),
        RECORD_SAMPLE,
      ),
    ];
    progress(`reading ${sample.length} of the messages through GET /v1/projects/{p}/messages/{id}`);
    const records = await checkRecords(gateway.url, authorization, projectId, sample);
    progress(
      `records: ${records.sent}/${records.sampled} read sent ${JSON.stringify(records.statuses)}; a read took ${lat(records.readLatencyMs)}`,
    );
    await sink.client.clear();

    // 5. Scale out: a second mailer and a second users service join the same consumer groups.
    let scaled: ScaleOutResult | null = null;
    if (scaleOut) {
      const [mailer2Port, users2Port] = await Promise.all([freePort(), freePort()]);
      progress('starting a second users service and a second mailer');
      started({ ...(await startPostbusService('users', users2Port, envOf('users-2'), `${runId}-users-2`)), name: 'users-2' });
      started({ ...(await startPostbusService('mailer', mailer2Port, envOf('mailer-2'), `${runId}-mailer-2`)), name: 'mailer-2' });
      // The groups rebalance as the new members join: a warm-up lets that settle before anything is measured.
      await client.closedLoop(`${runId}-warmup-2`, WARMUP, IN_FLIGHT, signal);
      await waitForSinkCount(sink.client, WARMUP, { stallMs: 30_000, signal });
      await sleep(1_000);
      await sink.client.clear();
      const { result } = await closedLoopOf(client, direct, 'Postbus, 2 mailers + 2 users', `${runId}-tp-scaled`);
      scaled = {
        instances: { mailer: 2, users: 2 },
        partitions: Number(env['KAFKA_TOPIC_PARTITIONS']),
        throughput: result,
        rateRatio: Math.round((result.rate / Math.max(throughput.rate, 1e-9)) * 1000) / 1000,
      };
      await sink.client.clear();
    }

    const postbus = { throughput, paced, records, scaleOut: scaled };
    const failures = failuresOf(direct, postbus, { attachment, batch });
    const baselineFile = join(resultsDir(), 'baseline.json');
    const check = sendPath.length > 0 ? checkAgainst(readBaselines(baselineFile).mailer ?? null, sendPath) : null;
    const results: MailerBenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: { mails, inFlight: IN_FLIGHT, warmup: WARMUP, pacedRate, pacedDurationSec, smtpPoolConnections: SMTP_POOL },
      direct,
      postbus,
      ...(attachment ? { attachment } : {}),
      ...(batch ? { batch } : {}),
      ...goalsAndRatio(direct, throughput, paced),
      ...(check ? { sendPath: check } : {}),
      logs: run.logs(),
      failures,
      warnings: warningsOf(direct, postbus, { attachment, batch }),
      ok: failures.length === 0,
    };
    console.log(`\n${formatReport(results)}\n`);
    if (check) console.log(`${formatCheck(check)}\n`);
    for (const file of saveResults('mailer', results, 'mailer-latest.json', formatMarkdown(results))) progress(`wrote ${file}`);
    if (process.env['BENCH_PROFILE'])
      progress(`CPU profiles of ${process.env['BENCH_PROFILE']} go to .data/profiles/${runId}/ when the services stop`);
    if (!check) {
      progress('no repeat measured the send path in full: nothing to compare with the baseline');
      return 1;
    }
    if (acceptingBaseline) {
      if (!results.ok) {
        progress('the run failed: its figures are not accepted as the baseline');
        return 1;
      }
      acceptBaseline(baselineFile, check, results.environment.gitCommit);
      progress(`accepted this run's median as the mail bench's baseline in ${baselineFile}`);
      return 0;
    }
    return results.ok && check.regressions.length === 0 ? 0 : 1;
  } finally {
    triggers?.close();
    await run.stopChildren();
    await dbCounters?.close().catch(() => undefined);
    await infra.close(keepData, progress);
  }
}

runBench('mailer bench', main);
