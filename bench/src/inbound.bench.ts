/**
 * The inbound benchmark (issue 33): DSNs a second the inbound MX takes (answered 250 once stored on Kafka with
 * acks=all) and reads through (each a bounce the mailer has recorded), and the send path's figures alone and
 * while the MX takes DSNs. Every DSN bounces a real message the run sent through Postbus to the SMTP sink, at
 * the envelope sender the mailer signed for it. Run with `npm run bench:inbound` (or `npm run bench`, last).
 * Results go to bench/results/inbound-<timestamp>.json and inbound-latest.json.
 *   BENCH_DSNS=1000           DSNs of the inbound run (a closed loop over the connections below)
 *   BENCH_DSN_CONNECTIONS=16  SMTP connections the DSNs are offered over, one transaction at a time on each (an MX
 *                             hears from many MTAs at once; each transaction waits for an acks=all write)
 *   BENCH_DSN_RATE=200        DSNs a second offered (evenly spaced) while the send path is measured again
 *   BENCH_MAILS=1000          triggers of each closed-loop send-path run (64 in flight, as the mailer bench's)
 *   BENCH_PACED_RATE          triggers a second of the paced send-path runs (default: half what the closed loop delivered)
 *   BENCH_PACED_SECONDS=8     how long each paced send-path run lasts; the DSNs beside it come for as long
 *   BENCH_KEEP_DATA=1         keep the run's topics, consumer groups and databases (until the next `npm test`)
 *   BENCH_PROFILE=inbound     also write V8 CPU profiles of these processes (comma-separated: gateway, users,
 *                             mailer, inbound) to .data/profiles/<run>/
 */
import { returnPathDomainOf, topicName, Topics } from '@postbus/contracts';
import { call, freePort, sleep, type SinkClient } from '@postbus/testing';
import { forkChild, profilerFor, startPostbusService, type ForkedChild } from './children';
import { infraPids, measureCpu, type CpuUsage } from './cpu';
import { DbCounters } from './db-counters';
import type { DsnOutcome, DsnSenderMessage, DsnTarget } from './dsn-sender';
import { RunInfrastructure, type BusProbe } from './infra';
import { formatReport, GOAL_DSN_RATE, GOAL_SEND_RATIO, type InboundBenchResults, type InboundRun } from './inbound-report';
import { SENDER_DOMAIN } from './mail-template';
import { envCount, envFlag, envNumber, envOptionalNumber, envSeconds } from './options';
import { BenchRun, runBench, saveResults } from './run';
import { sendRun, type SendRun } from './send-run';
import { benchEnv, createSendingProject, environment, UNTHROTTLED } from './setup';
import { latencyOf, perSecond, spread } from './stats';
import { firstTriggerAtSink, TriggerClient, waitForSinkCount } from './triggers';

const IN_FLIGHT = 64;
const WARMUP = 200;
/** Messages of each inbound run whose status is read back through the public API once the run is processed. */
const STATUS_SAMPLE = 25;
/** How often the consumer groups' lag is read while the DSNs are processed. */
const LAG_POLL_MS = 250;
const INBOUND_GROUP = 'postbus-inbound';
const MAILER_FEEDBACK_GROUP = 'postbus-mailer-feedback';
const STARTED = Date.now();

const progress = (message: string) => console.log(`[inbound ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(5)} s] ${message}`);

/** Every message at the sink as a DSN target: its envelope sender (read one by one: the list does not carry it). */
async function targetsAtSink(sink: SinkClient): Promise<DsnTarget[]> {
  const summaries: Array<{ id: string; messageId: string; recipient: string }> = [];
  for (let start = 0; ; start += 500) {
    const page = await sink.list(500, start);
    for (const m of page.messages) summaries.push({ id: m.ID, messageId: m.MessageID, recipient: m.To[0]?.Address ?? '' });
    if (page.messages.length < 500 || start + 500 >= page.total) break;
  }
  const targets: DsnTarget[] = [];
  let next = 0;
  const worker = async () => {
    while (next < summaries.length) {
      const { id, messageId, recipient } = summaries[next++]!;
      const { ReturnPath } = await sink.get(id);
      targets.push({ returnPath: ReturnPath, recipient, messageId });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return targets;
}

/**
 * Reads the lag of the inbound service's group on the inbound mail and of the mailer's on the feedback until both
 * are 0 once `offered` has resolved: `read`, when the inbound service had read every DSN taken and published its
 * bounce; `at`, when the mailer had recorded them all too. Null when the lag stopped moving for 60 s.
 */
async function whenProcessed(
  bus: BusProbe,
  runId: string,
  offered: Promise<unknown>,
  signal: AbortSignal,
): Promise<{ read: number | null; at: number | null; peakLag: { inbound: number; feedback: number } }> {
  let done = false;
  const over = () => (done = true);
  void offered.then(over, over);
  const peakLag = { inbound: 0, feedback: 0 };
  let last = '';
  let movedAt = Date.now();
  let reportedAt = Date.now();
  let read: number | null = null;
  for (;;) {
    signal.throwIfAborted();
    const wasDone = done;
    let inbound: number;
    let feedback: number;
    try {
      inbound = await bus.lag(topicName(INBOUND_GROUP, runId), Topics.InboundMail);
      feedback = await bus.lag(topicName(MAILER_FEEDBACK_GROUP, runId), Topics.Feedback);
    } catch (error) {
      // A broker that is briefly away: the lag is read again, and a lag that no longer moves ends the wait.
      progress(`  could not read the lag: ${(error as Error).message}`);
      if (Date.now() - movedAt > 60_000) return { read, at: null, peakLag };
      await sleep(1_000);
      continue;
    }
    const at = Date.now();
    peakLag.inbound = Math.max(peakLag.inbound, inbound);
    peakLag.feedback = Math.max(peakLag.feedback, feedback);
    if (wasDone && inbound === 0) read ??= at;
    if (wasDone && inbound === 0 && feedback === 0) return { read, at, peakLag };
    if (at - reportedAt >= 2_000) {
      reportedAt = at;
      progress(`  lag: inbound mail ${inbound}, feedback ${feedback}${wasDone ? ' (all offered)' : ''}`);
    }
    if (`${inbound}/${feedback}` !== last) {
      last = `${inbound}/${feedback}`;
      movedAt = at;
    } else if (at - movedAt > 60_000) return { read, at: null, peakLag };
    await sleep(LAG_POLL_MS);
  }
}

/** Reads a sample of the bounced messages through the public API: each should read `bounced`. */
async function statusesOf(
  gatewayUrl: string,
  authorization: string,
  projectId: string,
  targets: DsnTarget[],
): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const target of targets) {
    const id = target.messageId.slice(0, target.messageId.indexOf('@'));
    const res = await call(gatewayUrl, 'GET', `/v1/projects/${projectId}/messages/${id}`, { auth: authorization });
    const status = res.status === 200 && typeof res.body?.status === 'string' ? (res.body.status as string) : `HTTP ${res.status}`;
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return statuses;
}

/** Offers `targets` (closed loop, or at `rate`) and follows them until processed. */
async function inboundRun(
  sender: ForkedChild<DsnSenderMessage>,
  targets: DsnTarget[],
  rate: number | null,
  context: {
    bus: BusProbe;
    runId: string;
    watch: Record<string, number | undefined>;
    signal: AbortSignal;
    connections: number;
    read: (sample: DsnTarget[]) => Promise<Record<string, number>>;
    db: DbCounters;
  },
): Promise<InboundRun> {
  const db = await context.db.measure();
  const cpu = measureCpu(context.watch);
  sender.child.send({ type: 'run', targets, rate });
  const answered = sender.next();
  const processed = whenProcessed(context.bus, context.runId, answered, context.signal);
  processed.catch(() => undefined); // awaited below; not an unhandled rejection while the DSNs are offered
  const result = await answered;
  if (result.type !== 'result') throw new Error(`DSN sender: unexpected ${result.type}`);
  const { read: readAt, at: processedAt, peakLag } = await processed;
  const usage: CpuUsage | null = cpu();
  const dbCommandsPerDsn = await db(result.outcomes.filter((o) => o.code === 250).length);
  const outcomes: DsnOutcome[] = result.outcomes;
  const accepted = outcomes.filter((o) => o.code === 250);
  const codes: Record<string, number> = {};
  for (const o of outcomes) codes[String(o.code)] = (codes[String(o.code)] ?? 0) + 1;
  const first = Math.min(...outcomes.map((o) => o.sentAt));
  const acceptSpanMs = Math.max(...accepted.map((o) => o.answeredAt)) - first;
  const sample = spread(
    targets.filter((_, n) => outcomes[n]?.code === 250),
    STATUS_SAMPLE,
  );
  return {
    dsns: targets.length,
    connections: context.connections,
    targetRate: rate,
    sentRate: rate === null ? null : perSecond(Math.max(0, outcomes.length - 1), Math.max(...outcomes.map((o) => o.sentAt)) - first),
    accepted: accepted.length,
    replyCodes: codes,
    firstError: outcomes.find((o) => o.error !== undefined)?.error ?? null,
    acceptRate: perSecond(accepted.length, acceptSpanMs),
    acceptSpanMs,
    smtpLatencyMs: latencyOf(accepted.map((o) => o.answeredAt - o.dueAt)),
    readRate: readAt === null ? null : perSecond(accepted.length, readAt - first),
    processedRate: processedAt === null ? null : perSecond(accepted.length, processedAt - first),
    processedSpanMs: processedAt === null ? null : processedAt - first,
    peakLag,
    sampleStatuses: await context.read(sample),
    cpu: usage,
    dbCommandsPerDsn,
    senderCpuMs: result.cpuMs,
  };
}

async function main(): Promise<number> {
  const dsns = envCount('BENCH_DSNS', 1000);
  const connections = envCount('BENCH_DSN_CONNECTIONS', 16);
  const dsnRate = envNumber('BENCH_DSN_RATE', GOAL_DSN_RATE, 'number of DSNs a second');
  const mails = envCount('BENCH_MAILS', 1000);
  const pacedRateAsked = envOptionalNumber('BENCH_PACED_RATE', 'number of triggers a second');
  const pacedSeconds = envSeconds('BENCH_PACED_SECONDS', 8);
  const keepData = envFlag('BENCH_KEEP_DATA');
  const infra = new RunInfrastructure(
    'ibench',
    ['gateway', 'users', 'mailer', 'inbound'],
    ['postbus-mailer-projections', 'postbus-mailer-feedback', 'postbus-mailer-triggers', 'postbus-inbound', 'postbus-inbound-catalog'],
  );
  const { runId, bus } = infra;

  const run = new BenchRun(progress);
  const { signal, watch, started } = run;
  let triggers: TriggerClient | undefined;
  let sender: ForkedChild<DsnSenderMessage> | undefined;
  let dbCounters: DbCounters | undefined;
  try {
    progress(
      `run ${runId}: ${mails} triggers alone, ${dsns} DSNs over ${connections} connections, then ${mails} triggers beside ` +
        `${dsnRate} DSNs/s; checking Kafka and MongoDB`,
    );
    await infra.ensure();
    Object.assign(watch, infraPids());
    dbCounters = await DbCounters.open(infra.mongoUrl);

    const { dns, sink } = await infra.startMailStandIns(run);

    const [gatewayPort, usersPort, mailerPort, inboundPort, inboundSmtpPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const env = benchEnv({
      namespace: runId,
      ports: { gateway: gatewayPort, users: usersPort, mailer: mailerPort, inbound: inboundPort },
      smtpUrl: sink.smtpUrl,
      dnsServers: dns.address,
      // The bench's one address stands in for many remote MTAs: no per-address connection budget.
      overrides: { ...UNTHROTTLED, KAFKA_TOPIC_PARTITIONS: '6', INBOUND_CONNECTIONS_PER_MINUTE: '100000' },
    });
    const profile = profilerFor(runId);
    // One after the other: started side by side, they create the run's new topics at once (see mailer.bench.ts).
    for (const [name, port, extra] of [
      ['users', usersPort, {}],
      ['mailer', mailerPort, {}],
      ['inbound', inboundPort, { INBOUND_SMTP_PORT: String(inboundSmtpPort) }],
    ] as const) {
      progress(`starting ${name}`);
      started(await startPostbusService(name, port, profile(name, { ...env, ...extra }), `${runId}-${name}`));
    }
    progress('starting gateway');
    const gateway = started(await startPostbusService('gateway', gatewayPort, profile('gateway', env), `${runId}-gateway`));
    signal.throwIfAborted();

    const { authorization, projectId, email } = await createSendingProject(env, gateway.url, dns);
    progress(`project ${projectId}: sender domain ${email.domain} verified, email "${email.emailKey}" ready`);
    triggers = new TriggerClient({ gatewayUrl: gateway.url, projectId, emailKey: email.emailKey, authorization, connections: IN_FLIGHT });
    const client = triggers;

    // Warm-up of the send path (the first trigger waits for the catalog to reach the mailer) and of the MX (its
    // first DSN waits for the catalog to reach the inbound service).
    await firstTriggerAtSink(client, sink.client, `${runId}-first`, signal);
    await client.closedLoop(`${runId}-warmup`, WARMUP, IN_FLIGHT, signal);
    await waitForSinkCount(sink.client, WARMUP + 1, { stallMs: 15_000, signal });
    progress(`send path warm; DSN sender: ${WARMUP} warm-up DSNs to forged return paths`);
    sender = forkChild<DsnSenderMessage>(
      'dsn-sender.js',
      [
        JSON.stringify({
          host: '127.0.0.1',
          port: inboundSmtpPort,
          connections,
          returnPathDomain: returnPathDomainOf(SENDER_DOMAIN),
          warmup: WARMUP,
        }),
      ],
      `${runId}-dsn-sender`,
      signal,
    );
    watch['dsn-sender'] = sender.child.pid;
    const ready = await sender.next();
    if (ready.type !== 'ready') throw new Error(`DSN sender: unexpected ${ready.type}`);

    // The messages the inbound run bounces.
    await sink.client.clear();
    progress(`sending the ${dsns} messages the inbound run bounces`);
    await client.closedLoop(`${runId}-seed`, dsns, IN_FLIGHT, signal);
    await waitForSinkCount(sink.client, dsns, { stallMs: 15_000, signal });
    const seedTargets = await targetsAtSink(sink.client);
    await sink.client.clear();
    await sleep(1_000);

    // 1. The send path alone.
    const sendOptions = { load: { count: mails, inFlight: IN_FLIGHT }, watch, signal, progress };
    progress(`send path alone: ${mails} triggers, ${IN_FLIGHT} in flight, until all are at the sink`);
    const { run: alone } = await sendRun(client, sink.client, { ...sendOptions, tag: `${runId}-alone` });
    progress(
      `send path alone: ${alone.acceptRate} triggers/s accepted, ${alone.deliveryRate} mails/s at the sink, trigger -> sink p99 ${alone.sinkLatencyMs.p99} ms`,
    );
    const besideTargets = await targetsAtSink(sink.client);
    await sink.client.clear();
    await sleep(1_000);

    // 2. The inbound service alone, flat out.
    const context = {
      bus,
      runId,
      watch,
      signal,
      connections,
      read: (sample: DsnTarget[]) => statusesOf(gateway.url, authorization, projectId, sample),
      db: dbCounters,
    };
    progress(`inbound alone: ${seedTargets.length} DSNs over ${connections} connections, until every bounce is recorded`);
    const inboundAlone = await inboundRun(sender, seedTargets, null, context);
    progress(
      `inbound alone: ${inboundAlone.acceptRate} DSNs/s taken (${JSON.stringify(inboundAlone.replyCodes)}), ` +
        `${inboundAlone.readRate ?? '?'} DSNs/s read, ${inboundAlone.processedRate ?? '?'} bounces/s recorded by the mailer; sample ${JSON.stringify(inboundAlone.sampleStatuses)}`,
    );
    await sleep(1_000);

    // 3. The send path again, beside DSNs at BENCH_DSN_RATE for as long as the run alone took.
    const besideCount = Math.min(besideTargets.length, Math.ceil((dsnRate * Math.max(alone.spanMs, alone.acceptSpanMs)) / 1000));
    progress(`send path beside ${dsnRate} DSNs/s (${besideCount} DSNs): ${mails} triggers`);
    const dsnsBeside = inboundRun(sender, besideTargets.slice(0, besideCount), dsnRate, context);
    dsnsBeside.catch(() => undefined); // awaited below; not an unhandled rejection while the triggers run
    const { run: beside } = await sendRun(client, sink.client, { ...sendOptions, tag: `${runId}-beside` });
    const inboundBeside = await dsnsBeside;
    progress(
      `send path beside DSNs: ${beside.acceptRate} triggers/s accepted, ${beside.deliveryRate} mails/s at the sink, trigger -> sink p99 ${beside.sinkLatencyMs.p99} ms; ` +
        `DSNs ${inboundBeside.sentRate}/s offered, ${inboundBeside.acceptRate}/s taken, ${inboundBeside.readRate ?? '?'}/s read, ${inboundBeside.processedRate ?? '?'}/s recorded`,
    );
    const pacedTargets = await targetsAtSink(sink.client);
    await sink.client.clear();
    await sleep(1_000);

    // 4. and 5. The send path at a steady rate the machine carries (a client's real load), alone and then beside
    // DSNs at BENCH_DSN_RATE for as long: does the mail keep its pace and its latency while the bounces pour in?
    const pacedRate = pacedRateAsked ?? Math.max(10, Math.round(alone.deliveryRate / 2));
    const pacedLoad = { rate: pacedRate, durationSec: pacedSeconds };
    progress(`paced send path alone: ${pacedRate} triggers/s for ${pacedSeconds} s`);
    const { run: pacedAlone } = await sendRun(client, sink.client, { ...sendOptions, load: pacedLoad, tag: `${runId}-paced-alone` });
    pacedTargets.push(...(await targetsAtSink(sink.client)));
    await sink.client.clear();
    await sleep(1_000);
    const pacedDsns = Math.min(pacedTargets.length, Math.ceil(dsnRate * pacedSeconds));
    progress(`paced send path beside ${dsnRate} DSNs/s (${pacedDsns} DSNs): ${pacedRate} triggers/s for ${pacedSeconds} s`);
    const dsnsBesidePaced = inboundRun(sender, pacedTargets.slice(0, pacedDsns), dsnRate, context);
    dsnsBesidePaced.catch(() => undefined);
    const { run: pacedBeside } = await sendRun(client, sink.client, { ...sendOptions, load: pacedLoad, tag: `${runId}-paced-beside` });
    const inboundBesidePaced = await dsnsBesidePaced;
    progress(
      `paced send path beside DSNs: ${pacedBeside.deliveryRate} mails/s at the sink (alone ${pacedAlone.deliveryRate}), trigger -> sink p99 ${pacedBeside.sinkLatencyMs.p99} ms (alone ${pacedAlone.sinkLatencyMs.p99} ms)`,
    );
    await sink.client.clear();

    const ratio = (a: number, b: number) => Math.round((a / Math.max(b, 1e-9)) * 1000) / 1000;
    const ratiosOf = (b: SendRun, a: SendRun) => ({
      acceptRate: ratio(b.acceptRate, a.acceptRate),
      deliveryRate: ratio(b.deliveryRate, a.deliveryRate),
      sinkP99: ratio(b.sinkLatencyMs.p99, a.sinkLatencyMs.p99),
    });
    const ratios = ratiosOf(beside, alone);
    const pacedRatios = ratiosOf(pacedBeside, pacedAlone);
    const failures: string[] = [];
    for (const [name, r] of [
      ['inbound alone', inboundAlone],
      ['inbound beside the send path', inboundBeside],
      ['inbound beside the paced send path', inboundBesidePaced],
    ] as const) {
      if (r.accepted < r.dsns)
        failures.push(`${name}: ${r.dsns - r.accepted} of ${r.dsns} DSNs not taken (${JSON.stringify(r.replyCodes)}): ${r.firstError}`);
      if (r.processedRate === null) failures.push(`${name}: the DSNs taken were not all processed (lag stuck for 60 s)`);
      const notBounced = Object.entries(r.sampleStatuses).filter(([status]) => status !== 'bounced');
      if (notBounced.length > 0) failures.push(`${name}: sampled messages not bounced: ${JSON.stringify(r.sampleStatuses)}`);
    }
    for (const [name, s] of [
      ['send path alone', alone],
      ['send path beside DSNs', beside],
      ['paced send path alone', pacedAlone],
      ['paced send path beside DSNs', pacedBeside],
    ] as const)
      if (s.delivery.missing > 0 || s.delivery.duplicates > 0)
        failures.push(`${name}: ${s.delivery.missing} missing, ${s.delivery.duplicates} duplicates at the sink`);
    const warnings: string[] = [];
    if (inboundBeside.sentRate !== null && inboundBeside.sentRate < 0.95 * dsnRate)
      warnings.push(`DSNs beside the send path: ${inboundBeside.sentRate}/s offered of ${dsnRate}/s asked`);
    const overlap = ratio(inboundBeside.acceptSpanMs, beside.spanMs);
    if (overlap < 0.8) warnings.push(`the DSNs beside the send path lasted ${Math.round(overlap * 100)} % of its run only`);
    for (const [name, cpu] of [
      ['send path alone', alone.cpu],
      ['inbound alone', inboundAlone.cpu],
      ['send path beside DSNs', beside.cpu],
      ['paced send path alone', pacedAlone.cpu],
      ['paced send path beside DSNs', pacedBeside.cpu],
    ] as const)
      if (cpu && cpu.other >= 0.25)
        warnings.push(`${name}: other processes used ${cpu.other} of ${cpu.cores} cores; its figures are unreliable`);

    const results: InboundBenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: { dsns, connections, dsnRate, mails, inFlight: IN_FLIGHT, warmup: WARMUP, lagPollMs: LAG_POLL_MS, pacedRate, pacedSeconds },
      inbound: { alone: inboundAlone, besideSendPath: inboundBeside, besidePacedSendPath: inboundBesidePaced },
      sendPath: { alone, besideDsns: beside, ratios, paced: { alone: pacedAlone, besideDsns: pacedBeside, ratios: pacedRatios } },
      goals: {
        dsnsTaken: {
          rule: `DSNs taken a second >= ${GOAL_DSN_RATE}`,
          actual: inboundAlone.acceptRate,
          pass: inboundAlone.acceptRate >= GOAL_DSN_RATE,
        },
        sendPath: {
          rule: `the paced send path's mails/s at the sink beside ${dsnRate} DSNs/s >= ${GOAL_SEND_RATIO} x alone`,
          actual: pacedRatios.deliveryRate,
          pass: pacedRatios.deliveryRate >= GOAL_SEND_RATIO,
        },
      },
      logs: run.logs(),
      failures,
      warnings,
      ok: failures.length === 0,
    };
    console.log(`\n${formatReport(results)}\n`);
    for (const file of saveResults('inbound', results)) progress(`wrote ${file}`);
    return results.ok ? 0 : 1;
  } finally {
    if (sender) {
      if (sender.child.connected) sender.child.send({ type: 'exit' });
      await sender.close();
    }
    triggers?.close();
    await run.stopChildren();
    await dbCounters?.close().catch(() => undefined);
    await infra.close(keepData, progress);
  }
}

runBench('inbound bench', main);
