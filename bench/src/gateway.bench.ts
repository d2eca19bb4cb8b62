/**
 * Peak throughput and latency of the gateway's POST /v1/projects/{id}/users (validated, authenticated,
 * durably written to Kafka) against two baselines in processes of their own: express with the same
 * JSON parsing and validation, and bare node:http. Run with `npm run bench`. Results go to bench/results/.
 *   BENCH_DURATION=10   seconds of each measured run
 *   BENCH_USERS=1       also start the users service, consuming what the gateway accepts on the same two cores
 *                       (the whole system; by default the gateway is measured alone, like its baselines)
 *   BENCH_PROFILE=gateway  write a V8 CPU profile of the gateway to .data/profiles/<run>/
 *   BENCH_KEEP_DATA=1   keep the run's topics, consumer group and databases (until the next `npm test`, which removes what finished runs left)
 */
import { databaseName, defaultKafkaBrokers, defaultMongoUrl, ensureInfrastructure, freePort, uniqueName } from '@postbus/testing';
import { profilerFor, startBaseline, startPostbusService } from './children';
import { envFlag, envSeconds } from './options';
import { BenchRun, runBench, saveResults } from './run';
import { infraPids } from './cpu';
import { BusProbe, cleanUpRun } from './infra';
import { failuresOf, runLoad, type LoadStats } from './load';
import {
  failuresIn,
  formatReport,
  goalsOf,
  LABELS,
  ratiosOf,
  warningsIn,
  type BenchResults,
  type Target,
  type TargetResult,
} from './report';
import { authorizationOf, benchEnv, createClient, createProject, environment } from './setup';

const WARMUP_SEC = 2;
const CONNECTIONS = 50;
const STARTED = Date.now();

const progress = (message: string) => console.log(`[bench ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(5)} s] ${message}`);

const describe = (s: LoadStats) =>
  `${s.rps.toFixed(1)} req/s, p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms` +
  (failuresOf(s) > 0 ? `, ${s.non2xx} non-2xx, ${s.errors} errors, ${s.mismatches} unexpected bodies` : '') +
  (s.cpu
    ? `; cores busy ${s.cpu.busy}/${s.cpu.cores}: ` +
      Object.entries(s.cpu.byProcess)
        .filter(([, cores]) => cores >= 0.01)
        .map(([name, cores]) => `${name} ${cores}`)
        .join(', ') +
      `, other ${s.cpu.other}`
    : '');

/** Fails fast, with the answer, when a target does not accept the request at all. */
async function probe(name: string, url: string, headers: Record<string, string>, body: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"status":"accepted"')) throw new Error(`${name} answered ${res.status}: ${text}`);
}

async function main(): Promise<number> {
  const durationSec = envSeconds('BENCH_DURATION', 10);
  const withUsers = envFlag('BENCH_USERS');
  const keepData = envFlag('BENCH_KEEP_DATA');
  const runId = uniqueName('bench');
  const databases = (['gateway', 'users'] as const).map((name) => databaseName(runId, name));
  const brokers = defaultKafkaBrokers();
  const mongoUrl = defaultMongoUrl();

  const run = new BenchRun(progress);
  const { signal, watch, started } = run;
  const bus = new BusProbe(brokers.split(','), runId);
  try {
    progress(`run ${runId}: ${durationSec} s per run, ${CONNECTIONS} connections; checking Kafka (${brokers}) and MongoDB (${mongoUrl})`);
    await ensureInfrastructure();
    Object.assign(watch, infraPids());

    const gatewayPort = await freePort();
    const usersPort = withUsers ? await freePort() : undefined;
    const env = benchEnv({
      namespace: runId,
      ports: { gateway: gatewayPort, ...(usersPort !== undefined ? { users: usersPort } : {}) },
      // Without the users service (the default) the gateway still accepts: the commands wait on the topic.
      ...(usersPort === undefined ? { overrides: { USERS_URL: 'http://127.0.0.1:9' } } : {}),
    });
    if (usersPort !== undefined) {
      progress(`starting users service on ${usersPort}`);
      started(await startPostbusService('users', usersPort, env, `${runId}-users`));
      signal.throwIfAborted();
    }
    progress(`starting gateway on ${gatewayPort}`);
    const gateway = started(await startPostbusService('gateway', gatewayPort, profilerFor(runId)('gateway', env), `${runId}-gateway`));
    signal.throwIfAborted();

    const credentials = await createClient(env);
    const authorization = authorizationOf(credentials);
    const projectId = await createProject(gateway.url, authorization);
    progress(`client ${credentials.client_id}, project ${projectId}`);

    const urls: Record<Target, string> = { gateway: gateway.url, express: '', http: '' };
    for (const kind of ['express', 'http'] as const) {
      const port = await freePort();
      progress(`starting ${kind} baseline on ${port}`);
      const baseline = started(await startBaseline(kind, port, `${runId}-${kind}`));
      urls[kind] = baseline.url;
    }

    const path = `/v1/projects/${projectId}/users`;
    const headersOf = (target: Target): Record<string, string> => (target === 'gateway' ? { authorization } : {});
    const bodyOf = (tag: string) => (n: number) =>
      JSON.stringify({ email: `${tag}-${n}@bench.example`, user_id: `${tag}-${n}`, fields: { name: 'Ann', plan: 'pro' } });
    const load = (target: Target, phase: string, durationSec: number, overallRate?: number) => {
      const tag = `${runId}-${target}-${phase}`;
      return runLoad({
        url: urls[target],
        path,
        headers: headersOf(target),
        body: bodyOf(tag),
        durationSec,
        connections: CONNECTIONS,
        signal,
        watch,
        ...(overallRate !== undefined ? { overallRate } : {}),
      });
    };

    const measure = async (target: Target): Promise<TargetResult> => {
      await probe(LABELS[target], `${urls[target]}${path}`, headersOf(target), bodyOf(`${runId}-${target}-probe`)(0));
      progress(`${LABELS[target]}: warm-up ${WARMUP_SEC} s`);
      const warmup = await load(target, 'warmup', WARMUP_SEC);
      progress(`${LABELS[target]}: warm-up ${describe(warmup)}`);
      progress(`${LABELS[target]}: peak run ${durationSec} s`);
      const peak = await load(target, 'peak', durationSec);
      progress(`${LABELS[target]}: peak ${describe(peak)}`);
      return { warmup, peak };
    };
    // What the users service has not consumed yet of what the gateway accepted (it shares the cores).
    const usersLag = async (after: string): Promise<number | null> => {
      if (!withUsers) return null;
      const lag = await bus.usersLag();
      progress(`users service ${lag} commands behind after the ${after}`);
      return lag;
    };

    const http = await measure('http');
    const express = await measure('express');
    const gatewayPeak = await measure('gateway');
    const lagAfterPeak = await usersLag('peak run');
    const halfPeakRate = Math.max(1, Math.round(gatewayPeak.peak.rps / 2));
    progress(`${LABELS.gateway}: half-peak run ${durationSec} s at ${halfPeakRate} req/s`);
    const halfPeak = await load('gateway', 'halfpeak', durationSec, halfPeakRate);
    progress(`${LABELS.gateway}: half-peak ${describe(halfPeak)}`);
    progress(`${LABELS.express}: the same rate, ${durationSec} s`);
    const expressAtHalfPeak = await load('express', 'halfpeak', durationSec, halfPeakRate);
    progress(`${LABELS.express}: at ${halfPeakRate} req/s ${describe(expressAtHalfPeak)}`);
    const lagAfterHalfPeak = await usersLag('half-peak run');

    const targets: BenchResults['targets'] = {
      http,
      express,
      gateway: {
        ...gatewayPeak,
        halfPeak,
        expressAtHalfPeak,
        usersLag: lagAfterPeak === null || lagAfterHalfPeak === null ? null : { afterPeak: lagAfterPeak, afterHalfPeak: lagAfterHalfPeak },
      },
    };
    const failures = failuresIn(targets);
    const results: BenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: { durationSec, warmupSec: WARMUP_SEC, connections: CONNECTIONS, pipelining: 1, halfPeakRate },
      targets,
      ratios: ratiosOf(targets),
      goals: goalsOf(targets),
      failures,
      warnings: warningsIn(targets),
      ok: failures.length === 0,
    };
    console.log(`\n${formatReport(results)}\n`);
    for (const file of saveResults('gateway', results, 'latest.json')) progress(`wrote ${file}`);
    return results.ok ? 0 : 1;
  } finally {
    await run.stopChildren();
    // The infrastructure stays up: the mail and webhook benches that follow use it.
    await cleanUpRun({ keepData, probe: bus, mongoUrl, databases, infraStarted: [], progress });
  }
}

runBench('bench', main);
