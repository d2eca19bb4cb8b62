/**
 * The SMTP bench (issue 49): content mails submitted over SMTP (Nodemailer's pooled transport, 10 connections, to
 * services/submission, which hands each message to the gateway's content send) against the same mails sent with
 * POST /v1/projects/{p}/emails/send at the same load (10 requests in flight), on one stack started as the mail bench
 * starts its own (users, mailer, gateway, and SMTP submission). Each run goes until every accepted mail is at the
 * sink; it reports submissions a second (answered 250 / 200) and the CPU per mail of every process but the load
 * generators (from /proc, as the mail bench counts it), and the gate is SMTP's CPU per mail at most 1.3 × HTTP's
 * (the median of the repeats' ratios). Two more runs per repeat tell where a difference comes from, and are not gated:
 * the HTTP content send paced at the rate the SMTP run just reached (a closed loop at a higher rate batches more, in
 * Kafka's produce requests and in the mailer's group commits), and the HTTP content send with an Idempotency-Key on
 * every request, as SMTP submission sends every message.
 * Run with `npm run bench:smtp` (or `npm run bench`, last). Results go to bench/results/smtp-<timestamp>.json,
 * smtp-latest.json and smtp-latest.md.
 *   BENCH_SMTP=0               skip it (in `npm run bench`)
 *   BENCH_SMTP_MAILS=2000      mails of each run
 *   BENCH_SMTP_CONNECTIONS=10  SMTP connections of the pool, and HTTP requests in flight
 *   BENCH_SMTP_REPEATS=3       repeats of the runs (HTTP and SMTP alternate which goes first)
 *   BENCH_SMTP_TLS=starttls    or `implicit` (the 465 port)
 *   BENCH_SMTP_PATHS=http,smtp  run only these paths (comma-separated: http, smtp, http-paced, http-idempotent; all
 *                              four by default), e.g. to profile one alone; the gate needs http and smtp, http-paced
 *                              needs smtp
 *   BENCH_KEEP_DATA=1          keep the run's topics, consumer groups and databases (until the next `npm test`)
 *   BENCH_PROFILE=submission   also write V8 CPU profiles of these processes (comma-separated: gateway, users, mailer,
 *                              submission; a profile covers the main thread, not the submission's parse threads)
 * SUBMISSION_PARSE_THREADS (and every other service setting) in the environment reach the services.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { freePort, sleep } from '@postbus/testing';
import { forkChild, profilerFor, startPostbusService, type ForkedChild } from './children';
import { infraPids, measureCpu, type CpuUsage } from './cpu';
import { DbCounters } from './db-counters';
import { RunInfrastructure } from './infra';
import { contentMailOf, SENDER_DOMAIN } from './mail-template';
import { cpuLine, cpuPerMail } from './mailer-report';
import { envCount, envFlag } from './options';
import { BenchRun, runBench, saveResults } from './run';
import { benchEnv, createSendingProject, environment, UNTHROTTLED } from './setup';
import type { SmtpSenderMessage, SmtpSenderOptions } from './smtp-sender';
import {
  formatMarkdown,
  formatReport,
  GOAL_SMTP_CPU_RATIO,
  median,
  mediansOf,
  PATH_LABELS,
  ratioOf,
  round,
  type SmtpBenchResults,
  type SmtpRepeat,
  type SubmitPath,
  type SubmitRun,
} from './smtp-report';
import { latencyOf, perSecond } from './stats';
import { firstTriggerAtSink, matchDeliveries, readSink, TriggerClient, waitForSinkCount, type Trigger } from './triggers';

const WARMUP = 200;
/** Nodemailer's pool default, and SMTP submission's SUBMISSION_TRANSACTIONS_PER_CONNECTION. */
const MESSAGES_PER_CONNECTION = 100;
/** How long the stack's idle burn is measured. */
const IDLE_SECONDS = 5;
const STARTED = Date.now();

const progress = (message: string) => console.log(`[smtp ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(5)} s] ${message}`);

/** The paths BENCH_SMTP_PATHS names (comma-separated), in the order they run in; all by default. */
function pathsOf(named: string | undefined): SubmitPath[] {
  const known = Object.keys(PATH_LABELS) as SubmitPath[];
  if (!named) return known;
  const paths = named.split(',').map((p) => p.trim());
  const unknown = paths.filter((p) => !known.includes(p as SubmitPath));
  if (unknown.length > 0 || paths.length === 0) throw new Error(`BENCH_SMTP_PATHS names ${known.join(', ')}, not "${named}"`);
  if (paths.includes('http-paced') && !paths.includes('smtp')) throw new Error('BENCH_SMTP_PATHS: http-paced goes at the rate of smtp');
  return known.filter((p) => paths.includes(p));
}

/** CPU time of a process's main thread and of all its other threads, ms (/proc/<pid>/task; null where it cannot be read). */
function threadCpuMs(pid: number | undefined): { main: number; others: number } | null {
  if (pid === undefined) return null;
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks of 10 ms (see cpu.ts).
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (Number(tid) === pid) main += ms;
      else others += ms;
    }
    return { main, others };
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  if (process.env['BENCH_SMTP'] === '0') {
    progress('BENCH_SMTP=0: skipped');
    return 0;
  }
  const mails = envCount('BENCH_SMTP_MAILS', 2000);
  const connections = envCount('BENCH_SMTP_CONNECTIONS', 10);
  const repeats = envCount('BENCH_SMTP_REPEATS', 3);
  const tls = process.env['BENCH_SMTP_TLS'] === 'implicit' ? 'implicit' : 'starttls';
  const paths = pathsOf(process.env['BENCH_SMTP_PATHS']);
  const keepData = envFlag('BENCH_KEEP_DATA');
  const parseThreads = Number(process.env['SUBMISSION_PARSE_THREADS'] || 2);
  const infra = new RunInfrastructure(
    'sbench',
    ['gateway', 'users', 'mailer'],
    ['postbus-mailer-projections', 'postbus-mailer-feedback', 'postbus-mailer-triggers', 'postbus-mailer-bulk'],
  );
  const { runId } = infra;

  const run = new BenchRun(progress);
  const { signal, watch, started } = run;
  const clients: TriggerClient[] = [];
  let sender: ForkedChild<SmtpSenderMessage> | undefined;
  let dbCounters: DbCounters | undefined;
  try {
    progress(
      `run ${runId}: ${mails} content mails a run over ${paths.map((p) => PATH_LABELS[p]).join(', ')}; ` +
        `${connections} connections / in flight; ${repeats} repeats; checking Kafka and MongoDB`,
    );
    await infra.ensure();
    Object.assign(watch, infraPids());
    dbCounters = await DbCounters.open(infra.mongoUrl);
    const counters = dbCounters;
    const { dns, sink } = await infra.startMailStandIns(run);

    const [gatewayPort, usersPort, mailerPort, submissionPort, smtpPort, smtpTlsPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const env = benchEnv({
      namespace: runId,
      ports: { gateway: gatewayPort, users: usersPort, mailer: mailerPort },
      smtpUrl: sink.smtpUrl,
      dnsServers: dns.address,
      overrides: { ...UNTHROTTLED, KAFKA_TOPIC_PARTITIONS: '6' },
    });
    const profile = profilerFor(runId);
    // One after the other (see mailer.bench.ts); SMTP submission once the gateway answers, as npm start does.
    for (const [name, port] of [
      ['users', usersPort],
      ['mailer', mailerPort],
      ['gateway', gatewayPort],
    ] as const) {
      progress(`starting ${name}`);
      started(await startPostbusService(name, port, profile(name, env), `${runId}-${name}`));
    }
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    progress(`starting SMTP submission (STARTTLS on ${smtpPort}, implicit TLS on ${smtpTlsPort})`);
    const submission = started(
      await startPostbusService(
        'submission',
        submissionPort,
        profile('submission', { ...env, SUBMISSION_PORT: String(smtpPort), SUBMISSION_TLS_PORT: String(smtpTlsPort) }),
        `${runId}-submission`,
      ),
    );
    signal.throwIfAborted();

    const { authorization, projectId, credentials } = await createSendingProject(env, gatewayUrl, dns);
    progress(`project ${projectId}: sender domain ${SENDER_DOMAIN} verified; SMTP login ${projectId} with the client's key`);

    const content = (tag: string, n: number) => ({ ...contentMailOf(tag, n), track_opens: false, track_clicks: false });
    const clientOf = (idempotencyKeys: boolean) => {
      const client = new TriggerClient({ gatewayUrl, projectId, emailKey: '', authorization, connections, content, idempotencyKeys });
      clients.push(client);
      return client;
    };
    const http = clientOf(false);
    const httpIdempotent = clientOf(true);

    // Warm-up: the first send waits for the catalog to reach the mailer; then every path warms up.
    const first = await firstTriggerAtSink(http, sink.client, `${runId}-first`, signal);
    progress(`first content mail at the sink ${Date.now() - first.sentAt} ms after it was sent; warm-up ${WARMUP} mails each path`);
    const warmUps = paths.filter((p) => p !== 'http-paced' || !paths.includes('http'));
    if (warmUps.includes('http') || warmUps.includes('http-paced'))
      await http.closedLoop(`${runId}-warmup-http`, WARMUP, connections, signal);
    if (paths.includes('http-idempotent')) await httpIdempotent.closedLoop(`${runId}-warmup-idem`, WARMUP, connections, signal);
    const senderOptions: SmtpSenderOptions = {
      host: '127.0.0.1',
      port: tls === 'implicit' ? smtpTlsPort : smtpPort,
      tls,
      user: projectId,
      pass: credentials.api_key,
      connections,
      messagesPerConnection: MESSAGES_PER_CONNECTION,
      warmup: WARMUP,
      warmupTag: `${runId}-warmup-smtp`,
    };
    if (paths.includes('smtp')) {
      sender = forkChild<SmtpSenderMessage>('smtp-sender.js', [JSON.stringify(senderOptions)], `${runId}-smtp-client`, signal);
      watch['smtp-client'] = sender.child.pid;
      const ready = await sender.next();
      if (ready.type !== 'ready') throw new Error(`SMTP client: unexpected ${ready.type}`);
    }
    const warmed = 1 + WARMUP * warmUps.length;
    if ((await waitForSinkCount(sink.client, warmed, { stallMs: 15_000, signal })) < warmed)
      throw new Error(`warm-up: fewer than ${warmed} mails reached the sink`);
    const smtpClient = sender;

    // The stack's idle burn: what every process spends a second with no mail (consumers' fetches, timers, the broker and
    // the database server's own work). A run's CPU per mail carries its share of it, the more the slower the run.
    await sink.client.clear();
    await sleep(2_000);
    const idleCpu = measureCpu(watch);
    await sleep(IDLE_SECONDS * 1_000);
    const idle = idleCpu();
    progress(`idle burn over ${IDLE_SECONDS} s: ${cpuLine(idle)}`);
    /** A run's CPU per mail net of the idle burn over its length (the load generators left out, as in cpuPerMail). */
    const netOf = (usage: CpuUsage | null, mailsAtSink: number): number | null => {
      if (!usage || !idle || mailsAtSink <= 0) return null;
      let net = 0;
      for (const [name, ms] of Object.entries(usage.cpuMs)) {
        if (name === 'bench' || name === 'smtp-client') continue;
        net += Math.max(0, ms - ((idle.cpuMs[name] ?? 0) * usage.wallMs) / idle.wallMs);
      }
      return round(net / mailsAtSink);
    };

    /** One run of `path`: a closed loop of `mails` sends, `connections` in flight; paced at `rate` sends a second when given. */
    const submitRun = async (path: SubmitPath, tag: string, rate?: number): Promise<SubmitRun> => {
      await sink.client.clear();
      await sleep(1_000);
      progress(
        `${PATH_LABELS[path]}: ${mails} mails, ${rate === undefined ? `${connections} in flight` : `${rate}/s`}, until all are at the sink`,
      );
      const db = await counters.measure();
      const threadsBefore = threadCpuMs(submission.pid);
      const cpu = measureCpu(watch);
      let fired: Trigger[];
      let clientCpuMs: number;
      if (path === 'smtp') {
        if (!smtpClient) throw new Error('no SMTP client');
        smtpClient.child.send({ type: 'run', tag, count: mails });
        const result = await smtpClient.next();
        if (result.type !== 'result') throw new Error(`SMTP client: unexpected ${result.type}`);
        fired = result.outcomes;
        clientCpuMs = result.cpuMs.user + result.cpuMs.system;
      } else {
        const before = process.cpuUsage();
        const client = path === 'http-idempotent' ? httpIdempotent : http;
        fired =
          rate === undefined
            ? await client.closedLoop(tag, mails, connections, signal)
            : await client.paced(tag, rate, mails / rate, signal);
        const used = process.cpuUsage(before);
        clientCpuMs = (used.user + used.system) / 1000;
      }
      const acceptedTriggers = fired.filter((t) => t.messageId !== null);
      const acceptSpanMs = Math.max(...fired.map((t) => t.answeredAt)) - Math.min(...fired.map((t) => t.sentAt));
      progress(`  ${acceptedTriggers.length} accepted in ${acceptSpanMs} ms; waiting for the sink`);
      await waitForSinkCount(sink.client, acceptedTriggers.length, {
        signal,
        onProgress: (n) => progress(`  ${n}/${acceptedTriggers.length} at the sink`),
      });
      const usage = cpu();
      const threadsAfter = threadCpuMs(submission.pid);
      const dbCommandsPerMessage = await db(acceptedTriggers.length);
      const match = matchDeliveries(fired, await readSink(sink.client), SENDER_DOMAIN);
      const perMail = cpuPerMail(usage, match.matched);
      const replyCodes: Record<string, number> = {};
      for (const t of fired) replyCodes[String(t.status)] = (replyCodes[String(t.status)] ?? 0) + 1;
      const result: SubmitRun = {
        path,
        mails,
        inFlight: connections,
        targetRate: rate ?? null,
        accepted: acceptedTriggers.length,
        replyCodes,
        firstError: fired.find((t) => t.messageId === null)?.error ?? null,
        acceptRate: perSecond(acceptedTriggers.length, acceptSpanMs),
        acceptSpanMs,
        acceptLatencyMs: latencyOf(acceptedTriggers.map((t) => t.answeredAt - t.sentAt)),
        deliveryRate: perSecond(match.matched, match.spanMs),
        sinkLatencyMs: latencyOf(match.latencies),
        matched: match.matched,
        missing: match.missing,
        duplicates: match.duplicates,
        cpu: usage,
        cpuPerMailMs: perMail,
        netCpuPerMailMs: netOf(usage, match.matched),
        acceptSideMs: perMail ? round((perMail.byProcess['gateway'] ?? 0) + (perMail.byProcess['submission'] ?? 0)) : null,
        clientCpuPerMailMs: match.matched > 0 ? round(clientCpuMs / match.matched) : null,
        submissionThreadsMs:
          path === 'smtp' && threadsBefore && threadsAfter && match.matched > 0
            ? {
                main: round((threadsAfter.main - threadsBefore.main) / match.matched),
                others: round((threadsAfter.others - threadsBefore.others) / match.matched),
              }
            : null,
        dbCommandsPerMessage,
      };
      progress(
        `  ${result.acceptRate} submissions/s, p99 ${result.acceptLatencyMs.p99} ms; ${result.matched} at the sink (${result.deliveryRate}/s); ` +
          `CPU ms per mail ${result.cpuPerMailMs?.total ?? '?'} (accept side ${result.acceptSideMs ?? '?'}, the app ${result.clientCpuPerMailMs ?? '?'})`,
      );
      return result;
    };

    const repeatResults: SmtpRepeat[] = [];
    for (let repeat = 1; repeat <= repeats; repeat++) {
      progress(`repeat ${repeat} of ${repeats}`);
      // HTTP and SMTP alternate which goes first, so that a drift of the machine does not favour one; the asides
      // (not gated) follow, the paced run at the rate the SMTP run just reached.
      const order: SubmitPath[] = [
        ...(repeat % 2 === 1 ? (['http', 'smtp'] as const) : (['smtp', 'http'] as const)).filter((p) => paths.includes(p)),
        ...paths.filter((p) => p === 'http-paced' || p === 'http-idempotent'),
      ];
      const runs: SmtpRepeat['runs'] = {};
      for (const path of order)
        runs[path] = await submitRun(path, `${runId}-${path}-${repeat}`, path === 'http-paced' ? runs.smtp!.acceptRate : undefined);
      const { http: h, smtp: s, 'http-paced': p } = runs;
      repeatResults.push({
        runs,
        cpuRatio: ratioOf(s?.cpuPerMailMs?.total, h?.cpuPerMailMs?.total),
        rateRatio: ratioOf(s?.acceptRate, h?.acceptRate),
        acceptSideRatio: ratioOf(s?.acceptSideMs, h?.acceptSideMs),
        sameRateCpuRatio: ratioOf(s?.cpuPerMailMs?.total, p?.cpuPerMailMs?.total),
        netCpuRatio: ratioOf(s?.netCpuPerMailMs, h?.netCpuPerMailMs),
      });
      progress(
        `repeat ${repeat}: SMTP / HTTP CPU per mail x${repeatResults.at(-1)!.cpuRatio ?? '?'}, submissions/s x${repeatResults.at(-1)!.rateRatio ?? '?'}`,
      );
    }
    await sink.client.clear();

    const allRuns = repeatResults.flatMap((r) => Object.values(r.runs));
    const failures: string[] = [];
    const warnings: string[] = [];
    repeatResults.forEach((r, i) => {
      for (const run of Object.values(r.runs)) {
        const name = `repeat ${i + 1}, ${PATH_LABELS[run.path]}`;
        if (run.accepted < run.mails)
          failures.push(
            `${name}: ${run.mails - run.accepted} of ${run.mails} refused (${JSON.stringify(run.replyCodes)}): ${run.firstError}`,
          );
        if (run.missing > 0 || run.duplicates > 0)
          failures.push(`${name}: ${run.missing} missing, ${run.duplicates} duplicates at the sink`);
        if (run.cpu && run.cpu.other >= 0.25)
          warnings.push(`${name}: other processes used ${run.cpu.other} of ${run.cpu.cores} cores; its figures are unreliable`);
      }
    });
    const medianRatio = (pick: (r: SmtpRepeat) => number | null) => {
      const value = median(repeatResults.map(pick).filter((v): v is number => v !== null));
      return value === null ? null : round(value, 3);
    };
    const ratios = {
      cpuPerMail: medianRatio((r) => r.cpuRatio),
      submissionsPerSecond: medianRatio((r) => r.rateRatio),
      acceptSide: medianRatio((r) => r.acceptSideRatio),
      cpuPerMailAtSameRate: medianRatio((r) => r.sameRateCpuRatio),
      netCpuPerMail: medianRatio((r) => r.netCpuRatio),
    };
    const medians: SmtpBenchResults['medians'] = {};
    for (const path of paths) medians[path] = mediansOf(allRuns.filter((r) => r.path === path));
    const results: SmtpBenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: { mails, connections, messagesPerConnection: MESSAGES_PER_CONNECTION, tls, repeats, warmup: WARMUP, parseThreads, paths },
      idle,
      repeats: repeatResults,
      medians,
      // At the same rate: ten SMTP connections, a transaction at a time each, carry fewer mails a
      // second than ten HTTP requests in flight, and at a lower rate every process batches less per
      // mail; what SMTP itself costs is its CPU per mail against HTTP's carrying the same mails/s.
      gate: {
        rule: `SMTP submission's CPU per mail <= ${GOAL_SMTP_CPU_RATIO} x the HTTP content send's at the same rate (median of the repeats)`,
        limit: GOAL_SMTP_CPU_RATIO,
        actual: ratios.cpuPerMailAtSameRate,
        ratios: repeatResults.map((r) => r.sameRateCpuRatio),
        pass: ratios.cpuPerMailAtSameRate !== null && ratios.cpuPerMailAtSameRate <= GOAL_SMTP_CPU_RATIO,
      },
      ratios,
      logs: run.logs(),
      failures,
      warnings,
      ok: failures.length === 0,
    };
    console.log(`\n${formatReport(results)}\n`);
    for (const file of saveResults('smtp', results, 'smtp-latest.json', formatMarkdown(results))) progress(`wrote ${file}`);
    if (process.env['BENCH_PROFILE'])
      progress(`CPU profiles of ${process.env['BENCH_PROFILE']} go to .data/profiles/${runId}/ when the services stop`);
    return results.ok && results.gate.pass ? 0 : 1;
  } finally {
    if (sender) {
      if (sender.child.connected) sender.child.send({ type: 'exit' });
      await sender.close();
    }
    for (const client of clients) client.close();
    await run.stopChildren();
    await dbCounters?.close().catch(() => undefined);
    await infra.close(keepData, progress);
  }
}

runBench('smtp bench', main);
