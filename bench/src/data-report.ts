/** The data-growth benchmark's results: the comparison of the phases, the issue's goals, and the Markdown table. */
import type { ReadResult, SkippedRead } from './data-reads';
import type { SeedOutcome, SeedSizes } from './data-seeds';
import type { Environment } from './setup';
import type { Latency } from './stats';

/** The issue's goals (issue 14, "What must be shown"). */
export const GOALS = { readP95Ms: 200, readRatio: 3, sinkRatio: 1.5 } as const;

export interface SinkRun {
  rate: number;
  durationSec: number;
  triggers: number;
  accepted: number;
  matched: number;
  /** Trigger sent → message at the SMTP sink. */
  latencyMs: Latency;
  firstError: string | null;
}

export interface Phase {
  reads: ReadResult[];
  skipped: SkippedRead[];
  triggerToSink: SinkRun;
  /** The machine's 1-minute load average when the phase began and ended: what else ran beside it. */
  loadAverage: { start: number; end: number };
}

export interface ErasureRun {
  erasureId: string | null;
  personMessages: number;
  /** Erase request → the erasure read `completed`; null when it did not within the timeout. */
  completedAfterMs: number | null;
  /** Its erase_at (ERASURE_DELAY after the request) → completed. */
  afterEraseAtMs: number | null;
  lastStatus: string;
  timeoutSec: number;
  completed: boolean;
}

export interface ReadComparison {
  name: string;
  request: string;
  empty: { p50: number; p95: number } | null;
  seeded: { p50: number; p95: number } | null;
  /** Seeded p95 / empty p95. */
  ratio: number | null;
  /** Every request of both phases answered 200. */
  allAnswered: boolean;
  /** Null: not measured in both phases. */
  met: boolean | null;
  note: string | null;
}

export interface DataBenchResults {
  timestamp: string;
  runId: string;
  environment: Environment;
  settings: {
    scale: number;
    sizes: SeedSizes;
    requestsPerRead: number;
    warmupPerRead: number;
    sinkRate: number;
    sinkDurationSec: number;
    queryAudit: string;
  };
  /** The measured project (small) and the seeded one (big), in the same databases. */
  projects: { measured: string; seeded: string };
  empty: Phase;
  seeds: SeedOutcome[];
  /** Services whose seed CLI does not exist (yet). */
  missingSeeds: string[];
  /** Seeds that failed (the run goes on with the others). */
  seedFailures: string[];
  seeded: Phase | null;
  /** Reads of the big seeded project itself (no empty figure to compare with: the goal is the absolute p95). */
  seededProjectReads: ReadResult[];
  seededProjectSkipped: SkippedRead[];
  comparison: ReadComparison[];
  sink: { emptyP95: number; seededP95: number | null; ratio: number | null; met: boolean | null };
  erasure: ErasureRun | null;
  goals: string[];
  failures: string[];
  logs: Record<string, string>;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const figure = (r: ReadResult | undefined) => (r && r.ok > 0 ? { p50: r.latencyMs.p50, p95: r.latencyMs.p95 } : null);
const answeredAll = (r: ReadResult | undefined) => r === undefined || Object.keys(r.failures).length === 0;

/** Each read of `order` (the reads in the order the run makes them) in both phases. */
export function compareReads(order: readonly string[], empty: Phase, seeded: Phase | null): ReadComparison[] {
  const seen = [...empty.reads, ...empty.skipped, ...(seeded?.reads ?? []), ...(seeded?.skipped ?? [])].map((r) => r.name);
  const names = [...new Set([...order, ...seen])].filter((name) => seen.includes(name));
  return names.map((name) => {
    const before = empty.reads.find((r) => r.name === name);
    const after = seeded?.reads.find((r) => r.name === name);
    const skipped = [...empty.skipped, ...(seeded?.skipped ?? [])].find((r) => r.name === name);
    const e = figure(before);
    const s = figure(after);
    const ratio = e && s ? round(s.p95 / Math.max(e.p95, 0.1)) : null;
    const allAnswered = answeredAll(before) && answeredAll(after);
    const met =
      e && s && ratio !== null
        ? allAnswered && s.p95 <= GOALS.readP95Ms && ratio <= GOALS.readRatio
        : seeded && (before || after)
          ? false
          : null;
    const failure = [before, after].find((r) => r && r.firstFailure)?.firstFailure ?? null;
    const abandoned = [before, after].find((r) => r && r.abandoned > 0);
    return {
      name,
      request: (before ?? after ?? skipped)?.request ?? '',
      empty: e,
      seeded: s,
      ratio,
      allAnswered,
      met,
      note: skipped
        ? `skipped: ${skipped.reason}`
        : [
            ...(failure ? [`not every request answered 200: ${failure}`] : []),
            ...(abandoned
              ? [`${abandoned.latencyMs.count + Object.values(abandoned.failures).reduce((a, b) => a + b, 0)} requests only: out of time`]
              : []),
          ].join('; ') || null,
    };
  });
}

const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${value}`);
const mark = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : '**missed**');
const escape = (text: string) => text.replace(/\|/g, '\\|');
/** A request as the tables show it: the project as {p}, a cursor as …. */
const shown = (request: string) =>
  request === ''
    ? '–'
    : `\`${escape(request.replace(/^\/v1\/projects\/[a-f0-9]{24}/, '/v1/projects/{p}').replace(/cursor=[^&]+/, 'cursor=…'))}\``;

export function formatMarkdown(results: DataBenchResults): string {
  const { settings, sizes } = { settings: results.settings, sizes: results.settings.sizes };
  const lines: string[] = [
    `# npm run bench:data — ${results.timestamp}`,
    '',
    `Run ${results.runId} at commit ${results.environment.gitCommit ?? '?'}${results.environment.gitDirty ? ' (with changes)' : ''}, ` +
      `${results.environment.cpus} × ${results.environment.cpuModel}, Node ${results.environment.node}; QUERY_AUDIT=${settings.queryAudit}.`,
    '',
    `Scale ${settings.scale}: ${sizes.messages} messages, ${sizes.users} users, ${sizes.deliveries} webhook deliveries, ${sizes.payments} payments` +
      `${sizes.erasures > 0 ? `, ${sizes.erasures} erasures` : ''} seeded into another project of the same databases; ` +
      `one person with ${sizes.personMessages} messages. ${settings.requestsPerRead} sequential requests per read (after ${settings.warmupPerRead} untimed).`,
    '',
  ];
  if (results.seeds.length > 0) {
    lines.push('| Seed | Count | Took | Rate | Seeded |', '|---|---:|---:|---:|---|');
    for (const s of results.seeds)
      lines.push(
        `| ${s.service} | ${s.count} ${s.unit} | ${round(s.ms / 1000, 1)} s | ${s.rate}/s | ${escape(JSON.stringify(s.seeded))} |`,
      );
    lines.push('');
  }
  for (const failure of results.seedFailures) lines.push(`Seed failed: ${escape(failure)}`, '');
  if (results.missingSeeds.length > 0) lines.push(`No seed CLI yet for: ${results.missingSeeds.join(', ')} (their stores stay small).`, '');
  lines.push(
    `## Reads of the measured project (goal: p95 ≤ ${GOALS.readP95Ms} ms and ≤ ${GOALS.readRatio}× empty)`,
    '',
    '| Read | Request | Empty p50 / p95 (ms) | Seeded p50 / p95 (ms) | p95 ratio | Goal |',
    '|---|---|---:|---:|---:|---|',
  );
  for (const c of results.comparison) {
    lines.push(
      `| ${c.name} | ${shown(c.request)} | ${c.empty ? `${c.empty.p50} / ${c.empty.p95}` : '–'} | ` +
        `${c.seeded ? `${c.seeded.p50} / ${c.seeded.p95}` : '–'} | ${ms(c.ratio)} | ${mark(c.met)}${c.note ? ` (${escape(c.note)})` : ''} |`,
    );
  }
  lines.push('');
  if (results.seededProjectReads.length + results.seededProjectSkipped.length > 0) {
    lines.push(
      `## Reads of the seeded project itself (goal: p95 ≤ ${GOALS.readP95Ms} ms)`,
      '',
      '| Read | Request | p50 / p95 (ms) | Goal |',
      '|---|---|---:|---|',
    );
    for (const r of results.seededProjectReads) {
      const failed = Object.keys(r.failures).length > 0;
      lines.push(
        `| ${r.name} | ${shown(r.request)} | ${r.ok > 0 ? `${r.latencyMs.p50} / ${r.latencyMs.p95}` : '–'} | ` +
          `${mark(!failed && r.ok > 0 && r.latencyMs.p95 <= GOALS.readP95Ms)}${failed ? ` (${escape(r.firstFailure ?? '')})` : ''} |`,
      );
    }
    for (const r of results.seededProjectSkipped) lines.push(`| ${r.name} | ${shown(r.request)} | – | skipped: ${escape(r.reason)} |`);
    lines.push('');
  }
  const e = results.empty.triggerToSink;
  const s = results.seeded?.triggerToSink;
  lines.push(
    `## Trigger → sink at ${settings.sinkRate}/s for ${settings.sinkDurationSec} s (goal: p95 ≤ ${GOALS.sinkRatio}× empty)`,
    '',
    '| Phase | At the sink | p50 (ms) | p95 (ms) | max (ms) |',
    '|---|---:|---:|---:|---:|',
    `| empty | ${e.matched}/${e.triggers} | ${e.latencyMs.p50} | ${e.latencyMs.p95} | ${e.latencyMs.max} |`,
    ...(s ? [`| seeded | ${s.matched}/${s.triggers} | ${s.latencyMs.p50} | ${s.latencyMs.p95} | ${s.latencyMs.max} |`] : []),
    '',
    `p95 ratio ${ms(results.sink.ratio)}: ${mark(results.sink.met)}.`,
    '',
  );
  const er = results.erasure;
  lines.push('## Erasure of the person through the public API (goal: it completes)', '');
  if (!er) lines.push('Not run (nothing was seeded).', '');
  else
    lines.push(
      er.completed
        ? `A person with ${er.personMessages} messages: completed ${round((er.completedAfterMs ?? 0) / 1000, 1)} s after the request ` +
            `(${round((er.afterEraseAtMs ?? 0) / 1000, 1)} s after its erase_at): met.`
        : `A person with ${er.personMessages} messages: **missed**: still "${er.lastStatus}" after ${er.timeoutSec} s.`,
      '',
    );
  const load = (phase: Phase) => `${phase.loadAverage.start} → ${phase.loadAverage.end}`;
  lines.push(
    `Load average (1 min) on ${results.environment.cpus} cores: empty phase ${load(results.empty)}` +
      `${results.seeded ? `, seeded phase ${load(results.seeded)}` : ''} (anything above the core count queues every request behind other work).`,
    '',
  );
  lines.push('## Goals', '', ...results.goals.map((g) => `- ${g}`), '');
  if (results.failures.length > 0) lines.push('## Missed', '', ...results.failures.map((f) => `- ${f}`), '');
  return `${lines.join('\n')}\n`;
}
