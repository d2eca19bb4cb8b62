/**
 * The burst benchmark (issue 29): a backlog drained. The consumers (users, mailer, webhook dispatcher)
 * are stopped while BENCH_BURST triggers to BENCH_RECIPIENTS addresses arrive through the gateway,
 * then started again; it measures how long every consumer group takes to reach lag 0, each group's
 * messages a second while it drains, and the CPU of each process during the drain. Run with
 * `npm run bench:burst` (or `npm run bench`, after the others). Results go to
 * bench/results/burst-<timestamp>.json and burst-latest.json (and .md).
 *   BENCH_BURST=20000       triggers of the burst
 *   BENCH_RECIPIENTS=5000   distinct addresses they go to (the first trigger of each registers it)
 *   BENCH_KEEP_DATA=1       keep the run's topics, consumer groups and databases
 */
import { Kafka, logLevel } from 'kafkajs';
import { consumerGroupLag, type GroupLag } from '@postbus/bus';
import { topicName } from '@postbus/contracts';
import { freePort, repoRoot, sleep } from '@postbus/testing';
import { startPostbusService, type Child } from './children';
import { infraPids, measureCpu, type CpuUsage } from './cpu';
import { RunInfrastructure } from './infra';
import { envCount, envFlag } from './options';
import { BenchRun, runBench, saveResults } from './run';
import { benchEnv, createSendingProject, environment, UNTHROTTLED, type Environment } from './setup';
import { TriggerClient } from './triggers';

const IN_FLIGHT = 32;
const STARTED = Date.now();
/** Every consumer group the started services run, as they name them. */
const GROUPS = ['postbus-users', 'postbus-mailer-triggers', 'postbus-mailer-projections', 'postbus-webhooks', 'postbus-webhooks-projects'];
/** The services whose consumers meet the backlog (the gateway keeps taking the burst). */
const CONSUMERS = ['users', 'mailer', 'webhook-dispatcher'] as const;

const progress = (message: string) => console.log(`[burst ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(6)} s] ${message}`);

interface GroupDrain {
  group: string;
  /** Messages waiting when the consumers started again. */
  backlog: number;
  /** Messages the group handled from then until it was at lag 0: its backlog, and what arrived meanwhile (events of the drain itself). */
  handled: number;
  /** Seconds from the start until the group's lag was 0 (null: it never was). */
  drainedAfterSec: number | null;
  messagesPerSec: number | null;
}

interface BurstBenchResults {
  timestamp: string;
  runId: string;
  environment: Environment;
  settings: { burst: number; recipients: number; inFlight: number; partitions: number };
  /** The burst as the gateway took it, with the consumers stopped. */
  accepted: { count: number; refused: number; seconds: number; perSec: number };
  /** From starting the consumers until every group was at lag 0. */
  drainSec: number | null;
  groups: GroupDrain[];
  cpu: CpuUsage | null;
  /** CPU milliseconds each process spent per trigger of the burst during the drain. */
  cpuMsPerTrigger: Record<string, number>;
  ok: boolean;
}

function formatMarkdown(r: BurstBenchResults): string {
  const cpuRows = Object.entries(r.cpu?.byProcess ?? {})
    .sort(([, a], [, b]) => b - a)
    .map(([name, cores]) => `| ${name} | ${cores.toFixed(2)} | ${(r.cpuMsPerTrigger[name] ?? 0).toFixed(2)} |`);
  return [
    `# Burst drain (${r.timestamp}, ${r.environment.gitCommit ?? 'unknown commit'}${r.environment.gitDirty ? ', uncommitted changes' : ''})`,
    '',
    `${r.settings.burst} triggers to ${r.settings.recipients} recipients, taken by the gateway in ${r.accepted.seconds.toFixed(1)} s ` +
      `(${r.accepted.perSec.toFixed(0)}/s, ${r.accepted.refused} refused) while the users service, the mailer and the webhook dispatcher were stopped; ` +
      `${r.settings.partitions} partitions, ${r.environment.cpus} cores (${r.environment.cpuModel}).`,
    '',
    `**Drained in ${r.drainSec === null ? 'never (see the groups)' : `${r.drainSec.toFixed(1)} s`}** after the consumers started again.`,
    '',
    '| group | backlog | handled until lag 0 | lag 0 after | messages/s while draining |',
    '|---|---:|---:|---:|---:|',
    ...r.groups.map(
      (g) =>
        `| ${g.group} | ${g.backlog} | ${g.handled} | ${g.drainedAfterSec === null ? 'never' : `${g.drainedAfterSec.toFixed(1)} s`} | ${g.messagesPerSec === null ? '–' : g.messagesPerSec.toFixed(0)} |`,
    ),
    '',
    'CPU during the drain:',
    '',
    '| process | cores | ms per trigger |',
    '|---|---:|---:|',
    ...cpuRows,
  ].join('\n');
}

async function main(): Promise<number> {
  const burst = envCount('BENCH_BURST', 20_000);
  const recipients = envCount('BENCH_RECIPIENTS', 5_000);
  const keepData = envFlag('BENCH_KEEP_DATA');
  const infra = new RunInfrastructure(
    'burst',
    ['gateway', ...CONSUMERS],
    GROUPS.filter((g) => g !== 'postbus-users'),
  );
  const { runId } = infra;
  const partitions = 6;

  const run = new BenchRun(progress);
  const { signal, watch, started } = run;
  const admin = new Kafka({ brokers: infra.brokers.split(','), clientId: 'postbus-bench', logLevel: logLevel.NOTHING }).admin();
  let triggers: TriggerClient | undefined;
  try {
    progress(
      `run ${runId}: ${burst} triggers to ${recipients} recipients with the consumers stopped, then the drain; checking Kafka and MongoDB`,
    );
    await infra.ensure();
    Object.assign(watch, infraPids());
    await admin.connect();
    const { dns, sink } = await infra.startMailStandIns(run);

    const ports = Object.fromEntries(
      await Promise.all(['gateway', ...CONSUMERS].map(async (name) => [name, await freePort()] as const)),
    ) as Record<'gateway' | (typeof CONSUMERS)[number], number>;
    const env = benchEnv({
      namespace: runId,
      ports,
      smtpUrl: sink.smtpUrl,
      dnsServers: dns.address,
      overrides: { ...UNTHROTTLED, KAFKA_TOPIC_PARTITIONS: String(partitions) },
    });
    const services = new Map<string, Child>();
    const start = async (name: string) => {
      const child = started(await startPostbusService(name, ports[name as keyof typeof ports], env, `${runId}-${name}`));
      services.set(name, child);
      return child;
    };
    // One after the other: services started side by side race to create the run's topics.
    for (const name of CONSUMERS) await start(name);
    const gateway = await start('gateway');
    signal.throwIfAborted();

    const { authorization, projectId, email } = await createSendingProject(env, gateway.url, dns);
    triggers = new TriggerClient({ gatewayUrl: gateway.url, projectId, emailKey: email.emailKey, authorization, connections: IN_FLIGHT });
    const client = triggers;
    const first = await client.fire(`${runId}-warm`, 0);
    if (first.status !== 200) throw new Error(`the first trigger answered ${first.status}: ${first.error}`);
    await sleep(3_000); // the first mail and registration through, every group joined

    // Each group's topics while its members run: a stopped group's lag must count them all.
    const namespaced = (g: string) => topicName(g, runId);
    const topicsOf = new Map<string, string[]>();
    for (const g of GROUPS) topicsOf.set(g, [...new Set((await consumerGroupLag(admin, namespaced(g))).partitions.map((p) => p.topic))]);
    progress(`stopping ${CONSUMERS.join(', ')}`);
    for (const name of CONSUMERS) await run.retire(services.get(name)!);
    progress(`the burst: ${burst} triggers, ${IN_FLIGHT} in flight`);
    const burstStarted = Date.now();
    let next = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < burst && !signal.aborted) {
          const n = next++;
          if ((await client.fire(runId, n % recipients)).status !== 200) refused++;
        }
      }),
    );
    signal.throwIfAborted();
    const burstSec = (Date.now() - burstStarted) / 1000;
    progress(`taken in ${burstSec.toFixed(1)} s (${refused} refused); starting the consumers again`);

    // Where each group stands: its backlog, and the messages it has handled (its partitions' ends less its lag).
    const readGroups = () => Promise.all(GROUPS.map((g) => consumerGroupLag(admin, namespaced(g), topicsOf.get(g))));
    const handledOf = (lag: GroupLag) => lag.partitions.reduce((sum, p) => sum + p.end - p.lag, 0);
    const before = await readGroups();
    const backlog = new Map(before.map((lag, i) => [GROUPS[i]!, lag.total]));
    const handled = new Map(before.map((lag, i) => [GROUPS[i]!, { from: handledOf(lag), to: handledOf(lag) }]));
    progress(`backlog: ${GROUPS.map((g) => `${g} ${backlog.get(g)}`).join(', ')}`);
    for (const name of CONSUMERS) watch[name] = undefined;
    const drainStarted = Date.now();
    for (const name of CONSUMERS) watch[name] = (await start(name)).pid;
    const cpuOf = measureCpu(watch);
    const drained = new Map<string, number>();
    for (;;) {
      signal.throwIfAborted();
      const lags = await readGroups();
      const elapsed = (Date.now() - drainStarted) / 1000;
      for (const [i, lag] of lags.entries()) {
        const g = GROUPS[i]!;
        if (lag.total > 0) drained.delete(g);
        else if (!drained.has(g)) {
          drained.set(g, elapsed);
          handled.get(g)!.to = handledOf(lag);
        }
      }
      progress(`${elapsed.toFixed(0)} s: ${lags.map((l, i) => `${GROUPS[i]} ${l.total}`).join(', ')}`);
      if (drained.size === GROUPS.length || elapsed > 30 * 60) break;
      await sleep(1_000);
    }
    const cpu = cpuOf();
    const drainSec = drained.size === GROUPS.length ? Math.max(...drained.values()) : null;
    const total = burst + 1;
    const results: BurstBenchResults = {
      timestamp: new Date(STARTED).toISOString(),
      runId,
      environment: await environment(),
      settings: { burst, recipients, inFlight: IN_FLIGHT, partitions },
      accepted: { count: burst - refused, refused, seconds: burstSec, perSec: (burst - refused) / burstSec },
      drainSec,
      groups: GROUPS.map((g) => {
        const after = drained.get(g) ?? null;
        const { from, to } = handled.get(g)!;
        return {
          group: g,
          backlog: backlog.get(g) ?? 0,
          handled: to - from,
          drainedAfterSec: after,
          messagesPerSec: after === null || to === from ? null : (to - from) / Math.max(after, 1),
        };
      }),
      cpu,
      cpuMsPerTrigger: Object.fromEntries(
        Object.entries(cpu?.cpuMs ?? {}).map(([name, ms]) => [name, Math.round((ms / total) * 100) / 100]),
      ),
      ok: drainSec !== null && refused === 0,
    };
    const markdown = formatMarkdown(results);
    console.log(`\n${markdown}\n`);
    for (const file of saveResults('burst', results, 'burst-latest.json', markdown)) progress(`wrote ${file.replace(`${repoRoot}/`, '')}`);
    return results.ok ? 0 : 1;
  } finally {
    triggers?.close();
    await run.stopChildren();
    await admin.disconnect().catch(() => undefined);
    await infra.close(keepData, progress);
  }
}

runBench('burst bench', main);
