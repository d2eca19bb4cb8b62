import { failuresOf, type LoadStats } from './load';

export const TARGETS = ['http', 'express', 'gateway'] as const;
export type Target = (typeof TARGETS)[number];

export const LABELS: Record<Target, string> = {
  http: 'node:http baseline',
  express: 'express baseline',
  gateway: 'gateway',
};

export interface TargetResult {
  warmup: LoadStats;
  peak: LoadStats;
}

export interface GatewayResult extends TargetResult {
  halfPeak: LoadStats;
  /**
   * The express baseline at the same evenly paced rate: the tail that the machine, the load
   * generator and node:http add to any server at that rate (a reference; the goal is the gateway's).
   */
  expressAtHalfPeak?: LoadStats;
  /** Commands the users service had not consumed yet after each run; null when it was not started. */
  usersLag: { afterPeak: number; afterHalfPeak: number } | null;
}

export interface Goals {
  throughput: { rule: string; required: number; actual: number; pass: boolean };
  halfPeakP99: { rule: string; limitMs: number; actualMs: number; pass: boolean };
}

export interface BenchResults {
  timestamp: string;
  runId: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string; gitCommit: string | null; gitDirty: boolean | null };
  settings: { durationSec: number; warmupSec: number; connections: number; pipelining: 1; halfPeakRate: number };
  targets: { http: TargetResult; express: TargetResult; gateway: GatewayResult };
  ratios: { gatewayToExpress: number; gatewayToHttp: number; expressToHttp: number };
  goals: Goals;
  /** Runs with non-2xx answers, errors or unexpected bodies, e.g. "gateway peak: 12 non-2xx (503: 12)". */
  failures: string[];
  /** Conditions that make figures less trustworthy: a busy machine, a saturated load generator, a missed rate. */
  warnings: string[];
  ok: boolean;
}

export const GOAL_THROUGHPUT_RATIO = 0.5;
export const GOAL_HALF_PEAK_P99_MS = 25;

const ratio = (a: number, b: number): number => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);

export function ratiosOf(targets: BenchResults['targets']): BenchResults['ratios'] {
  const { http, express, gateway } = targets;
  return {
    gatewayToExpress: ratio(gateway.peak.rps, express.peak.rps),
    gatewayToHttp: ratio(gateway.peak.rps, http.peak.rps),
    expressToHttp: ratio(express.peak.rps, http.peak.rps),
  };
}

export function goalsOf(targets: BenchResults['targets']): Goals {
  const required = Math.round(GOAL_THROUGHPUT_RATIO * targets.express.peak.rps * 100) / 100;
  const p99 = targets.gateway.halfPeak.latencyMs.p99;
  return {
    throughput: {
      rule: `gateway req/s >= ${GOAL_THROUGHPUT_RATIO} x express baseline req/s`,
      required,
      actual: targets.gateway.peak.rps,
      pass: targets.gateway.peak.rps >= required,
    },
    halfPeakP99: {
      rule: `gateway p99 at half its peak rate < ${GOAL_HALF_PEAK_P99_MS} ms`,
      limitMs: GOAL_HALF_PEAK_P99_MS,
      actualMs: p99,
      pass: p99 < GOAL_HALF_PEAK_P99_MS,
    },
  };
}

const measuredRuns = (targets: BenchResults['targets']): [string, LoadStats][] => [
  ...TARGETS.map((t): [string, LoadStats] => [`${LABELS[t]} peak`, targets[t].peak]),
  [`${LABELS.gateway} half-peak`, targets.gateway.halfPeak],
  ...(targets.gateway.expressAtHalfPeak
    ? [[`${LABELS.express} at the gateway's half peak`, targets.gateway.expressAtHalfPeak] as [string, LoadStats]]
    : []),
];

/** Cores used by processes the benchmark did not start nor depends on, above which figures are suspect. */
const OTHER_CPU_LIMIT = 0.25;
/** The load generator is one event loop: near a full core it, not the target, sets the pace. */
const GENERATOR_CPU_LIMIT = 0.9;

export function warningsIn(targets: BenchResults['targets']): string[] {
  const warnings: string[] = [];
  for (const [name, s] of measuredRuns(targets)) {
    if (s.cpu && s.cpu.other >= OTHER_CPU_LIMIT) {
      warnings.push(`${name}: other processes used ${s.cpu.other} of ${s.cpu.cores} cores during the run; its figures are unreliable`);
    }
    const generator = s.cpu?.byProcess['bench'] ?? 0;
    if (generator >= GENERATOR_CPU_LIMIT) {
      warnings.push(`${name}: the load generator used ${generator} cores (saturated): the target may be faster than measured`);
    }
    if (s.targetRate !== null && s.rps < 0.95 * s.targetRate) {
      warnings.push(`${name}: ${s.rps} req/s achieved of ${s.targetRate} req/s asked`);
    }
  }
  return warnings;
}

/** One line per run, warm-ups included, that got anything but the expected 2xx answer. */
export function failuresIn(targets: BenchResults['targets']): string[] {
  const runs: [string, LoadStats][] = [
    ...TARGETS.map((t): [string, LoadStats] => [`${LABELS[t]} warm-up`, targets[t].warmup]),
    ...measuredRuns(targets),
  ];
  return runs
    .filter(([, stats]) => failuresOf(stats) > 0)
    .map(([name, s]) => {
      const codes = Object.entries(s.statusCodes)
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, count]) => `${code}: ${count}`)
        .join(', ');
      return `${name}: ${s.non2xx} non-2xx${codes ? ` (${codes})` : ''}, ${s.errors} errors (${s.timeouts} timeouts), ${s.mismatches} unexpected bodies`;
    });
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const row = (name: string, s: LoadStats): string[] => [
  name,
  s.targetRate === null ? 'max' : String(s.targetRate),
  fixed(s.rps, 1),
  String(s.requests),
  fixed(s.latencyMs.p50),
  fixed(s.latencyMs.p99),
  fixed(s.latencyMs.max),
  String(s.non2xx),
  String(s.errors),
];

/** The human-readable summary printed at the end of a run. */
export function formatReport(results: BenchResults): string {
  const { targets, ratios, goals, settings } = results;
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
  const lag = targets.gateway.usersLag;
  return [
    `POST /v1/projects/{id}/users, ${settings.connections} connections, pipelining 1, ${settings.durationSec} s per run (after ${settings.warmupSec} s warm-up)`,
    '',
    table(
      ['target', 'rate', 'req/s', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'errors'],
      [
        row(LABELS.http, targets.http.peak),
        row(LABELS.express, targets.express.peak),
        row(LABELS.gateway, targets.gateway.peak),
        row(`${LABELS.gateway} @ half peak`, targets.gateway.halfPeak),
        ...(targets.gateway.expressAtHalfPeak ? [row(`${LABELS.express} @ same rate`, targets.gateway.expressAtHalfPeak)] : []),
      ],
    ),
    '',
    `ratios (req/s): gateway/express ${fixed(ratios.gatewayToExpress, 3)}, gateway/http ${fixed(ratios.gatewayToHttp, 3)}, express/http ${fixed(ratios.expressToHttp, 3)}`,
    lag
      ? `users service backlog: ${lag.afterPeak} commands after the gateway's peak run, ${lag.afterHalfPeak} after its half-peak run`
      : 'users service not started (BENCH_USERS=0)',
    '',
    `goal ${verdict(goals.throughput.pass)}: ${goals.throughput.rule}: ${fixed(goals.throughput.actual, 1)} vs ${fixed(goals.throughput.required, 1)} required`,
    `goal ${verdict(goals.halfPeakP99.pass)}: ${goals.halfPeakP99.rule}: p99 ${fixed(goals.halfPeakP99.actualMs)} ms at ${settings.halfPeakRate} req/s`,
    `  (the half-peak run is an open loop: requests evenly spaced over up to ${settings.connections} connections, latency counted from when each was due;`,
    `   the express baseline at the same rate shows the tail the machine and the load generator add to any server)`,
    ...(results.warnings.length > 0 ? ['', 'warnings:', ...results.warnings.map((w) => `  - ${w}`)] : []),
    ...(results.failures.length > 0 ? ['', 'FAILED requests:', ...results.failures.map((f) => `  - ${f}`)] : []),
  ].join('\n');
}
