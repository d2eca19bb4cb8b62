/** The SMTP bench's results, its gate and their summary (console and Markdown). */
import type { CpuUsage } from './cpu';
import type { CommandCounts } from './db-counters';
import { cpuLine, dbLine, type CpuPerMail } from './mailer-report';
import type { Environment } from './setup';
import type { Latency } from './stats';

/** Issue 49: a mail submitted over SMTP costs at most this many times the CPU of the same mail sent with POST …/emails/send. */
export const GOAL_SMTP_CPU_RATIO = 1.3;

/** How the mails of a run are submitted. */
export type SubmitPath = 'http' | 'smtp' | 'http-paced' | 'http-idempotent';

export const PATH_LABELS: Record<SubmitPath, string> = {
  http: 'HTTP content send',
  smtp: 'SMTP submission',
  'http-paced': "HTTP content send at SMTP's rate",
  'http-idempotent': 'HTTP content send + Idempotency-Key',
};

/** One run: `mails` content mails over one path, `inFlight` at a time, until every accepted one is at the sink. */
export interface SubmitRun {
  path: SubmitPath;
  mails: number;
  /** Requests or SMTP transactions in flight at most (a closed loop keeps them all busy). */
  inFlight: number;
  /** Sends a second asked (the paced run, at the SMTP run's submissions a second), or null for a closed loop. */
  targetRate: number | null;
  /** Answered 200 (HTTP) or 250 (SMTP) with a message id. */
  accepted: number;
  /** HTTP statuses or SMTP reply codes, and how many of each (0: no answer). */
  replyCodes: Record<string, number>;
  firstError: string | null;
  /** Submissions a second: accepted, from the first one sent to the last answered. */
  acceptRate: number;
  acceptSpanMs: number;
  /** Submitted to answered (the 200 or the 250). */
  acceptLatencyMs: Latency;
  /** Distinct accepted messages at the sink a second, first submitted to the last at the sink. */
  deliveryRate: number;
  sinkLatencyMs: Latency;
  matched: number;
  missing: number;
  duplicates: number;
  /** Every process but the load generators, first submission to the last mail at the sink. */
  cpu: CpuUsage | null;
  /** CPU ms per mail at the sink, by process and in total (the load generators left out, as the mail bench does). */
  cpuPerMailMs: CpuPerMail | null;
  /**
   * CPU ms per mail at the sink once the stack's idle burn (each process's CPU a second with no mail, measured before
   * the repeats, times the run's length) is taken out: a slower run spreads the same idle seconds over fewer mails.
   */
  netCpuPerMailMs: number | null;
  /** The gateway's and SMTP submission's CPU ms per mail: where the two paths differ (the rest is the same send). */
  acceptSideMs: number | null;
  /** The load generator's CPU ms per mail: the app's cost, not Postbus's (the bench process, or the SMTP client's). */
  clientCpuPerMailMs: number | null;
  /**
   * SMTP submission's CPU ms per mail by thread (/proc/<pid>/task): its main thread (SMTP sessions, TLS, the calls to
   * the gateway, the hand-off to the parse threads) and all its other threads (the parse threads, V8's and libuv's).
   */
  submissionThreadsMs: { main: number; others: number } | null;
  dbCommandsPerMessage: CommandCounts | null;
}

/** One repeat: each path once, one after the other, and SMTP against HTTP. */
export interface SmtpRepeat {
  runs: Partial<Record<SubmitPath, SubmitRun>>;
  /** SMTP's CPU per mail over HTTP's (whole process tree). */
  cpuRatio: number | null;
  /** SMTP's submissions a second over HTTP's. */
  rateRatio: number | null;
  /** SMTP's accept side (gateway + submission) over HTTP's (gateway). */
  acceptSideRatio: number | null;
  /** SMTP's CPU per mail over HTTP's at the same rate (the paced run): what the closed loop's batching does not explain. */
  sameRateCpuRatio: number | null;
  /** SMTP's over HTTP's CPU per mail net of the idle burn (see SubmitRun.netCpuPerMailMs). */
  netCpuRatio: number | null;
}

/** A path's medians over the repeats. */
export interface PathMedians {
  acceptRate: number;
  deliveryRate: number;
  cpuPerMailMs: number | null;
  netCpuPerMailMs: number | null;
  byProcess: Record<string, number>;
  acceptSideMs: number | null;
  clientCpuPerMailMs: number | null;
  acceptP99Ms: number;
  submissionThreadsMs: { main: number; others: number } | null;
}

export interface SmtpBenchResults {
  timestamp: string;
  runId: string;
  environment: Environment;
  settings: {
    mails: number;
    connections: number;
    messagesPerConnection: number;
    tls: 'starttls' | 'implicit';
    repeats: number;
    warmup: number;
    parseThreads: number;
    paths: SubmitPath[];
  };
  /** The stack with no mail, after the warm-up: cores each process used (its idle burn). */
  idle: CpuUsage | null;
  repeats: SmtpRepeat[];
  medians: Partial<Record<SubmitPath, PathMedians>>;
  gate: { rule: string; limit: number; actual: number | null; ratios: Array<number | null>; pass: boolean };
  /** SMTP over HTTP, medians of the repeats' ratios. */
  ratios: {
    cpuPerMail: number | null;
    submissionsPerSecond: number | null;
    acceptSide: number | null;
    cpuPerMailAtSameRate: number | null;
    netCpuPerMail: number | null;
  };
  logs: Record<string, string>;
  failures: string[];
  warnings: string[];
  ok: boolean;
}

export const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const ratioOf = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined || b <= 0 ? null : round(a / b, 3);

/** A path's medians over the runs of it. */
export function mediansOf(runs: SubmitRun[]): PathMedians {
  const of = (pick: (r: SubmitRun) => number | null | undefined) =>
    median(runs.map(pick).filter((v): v is number => typeof v === 'number'));
  const names = new Set(runs.flatMap((r) => Object.keys(r.cpuPerMailMs?.byProcess ?? {})));
  const byProcess: Record<string, number> = {};
  for (const name of names) {
    const value = of((r) => r.cpuPerMailMs?.byProcess[name]);
    if (value !== null) byProcess[name] = round(value);
  }
  const rounded = (value: number | null, digits = 2) => (value === null ? null : round(value, digits));
  const rate = (pick: (r: SubmitRun) => number) => rounded(of(pick), 1) ?? 0;
  const main = of((r) => r.submissionThreadsMs?.main);
  const others = of((r) => r.submissionThreadsMs?.others);
  return {
    acceptRate: rate((r) => r.acceptRate),
    deliveryRate: rate((r) => r.deliveryRate),
    cpuPerMailMs: rounded(of((r) => r.cpuPerMailMs?.total)),
    netCpuPerMailMs: rounded(of((r) => r.netCpuPerMailMs)),
    byProcess,
    acceptSideMs: rounded(of((r) => r.acceptSideMs)),
    clientCpuPerMailMs: rounded(of((r) => r.clientCpuPerMailMs)),
    acceptP99Ms: rate((r) => r.acceptLatencyMs.p99),
    submissionThreadsMs: main === null || others === null ? null : { main: round(main), others: round(others) },
  };
}

const f = (value: number | null | undefined, digits = 2) => (value === null || value === undefined ? '?' : value.toFixed(digits));

function table(header: string[], rows: string[][], markdown = false): string {
  if (markdown) {
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const PROCESS_ORDER = ['submission', 'gateway', 'users', 'mailer', 'kafka', 'ferretdb', 'smtp-sink'];

/** The medians of each path side by side: rates, CPU per mail by process, the accept side and the app's own. */
function mediansTable(r: SmtpBenchResults, markdown: boolean): string {
  const paths = r.settings.paths.filter((p) => r.medians[p]);
  const columns = paths.map((p) => r.medians[p]!);
  const names = new Set(columns.flatMap((c) => Object.keys(c.byProcess)));
  const ordered = [...PROCESS_ORDER.filter((n) => names.has(n)), ...[...names].filter((n) => !PROCESS_ORDER.includes(n)).sort()];
  return table(
    ['median of the repeats', ...paths.map((p) => PATH_LABELS[p])],
    [
      ['submissions/s (answered 200 / 250)', ...columns.map((c) => f(c.acceptRate, 1))],
      ['p99 submitted -> answered, ms', ...columns.map((c) => f(c.acceptP99Ms, 1))],
      ['mails/s at the sink', ...columns.map((c) => f(c.deliveryRate, 1))],
      ...ordered.map((name) => [`CPU ms per mail: ${name}`, ...columns.map((c) => f(c.byProcess[name]))]),
      ['CPU ms per mail: total', ...columns.map((c) => (markdown ? `**${f(c.cpuPerMailMs)}**` : f(c.cpuPerMailMs)))],
      ['the same, net of the idle burn', ...columns.map((c) => f(c.netCpuPerMailMs))],
      ['of which accept side (gateway + submission)', ...columns.map((c) => f(c.acceptSideMs))],
      [
        'submission: main thread / other threads',
        ...columns.map((c) => (c.submissionThreadsMs ? `${f(c.submissionThreadsMs.main)} / ${f(c.submissionThreadsMs.others)}` : '')),
      ],
      ['the app (load generator, not counted)', ...columns.map((c) => f(c.clientCpuPerMailMs))],
    ],
    markdown,
  );
}

function repeatsTable(r: SmtpBenchResults, markdown: boolean): string {
  const paths = r.settings.paths;
  return table(
    [
      'repeat',
      ...paths.flatMap((p) => [`${PATH_LABELS[p]}: submissions/s`, 'CPU ms/mail']),
      'SMTP / HTTP CPU',
      'SMTP / HTTP accept side',
      'SMTP / HTTP rate',
      'SMTP / HTTP at the same rate, CPU',
      'SMTP / HTTP net of idle, CPU',
    ],
    r.repeats.map((repeat, i) => [
      String(i + 1),
      ...paths.flatMap((p) => {
        const run = repeat.runs[p];
        return [f(run?.acceptRate, 1), f(run?.cpuPerMailMs?.total)];
      }),
      f(repeat.cpuRatio, 3),
      f(repeat.acceptSideRatio, 3),
      f(repeat.rateRatio, 3),
      f(repeat.sameRateCpuRatio, 3),
      f(repeat.netCpuRatio, 3),
    ]),
    markdown,
  );
}

const gateLine = (r: SmtpBenchResults) =>
  `gate ${r.gate.pass ? 'PASS' : 'FAIL'}: ${r.gate.rule}: ${f(r.gate.actual, 3)}x (repeats: ${r.gate.ratios.map((x) => f(x, 3)).join(', ')})`;

function runLines(run: SubmitRun): string[] {
  return [
    `${PATH_LABELS[run.path]}${run.targetRate === null ? '' : ` (${run.targetRate}/s)`}: ${run.accepted}/${run.mails} accepted (${JSON.stringify(run.replyCodes)}), ${run.acceptRate} submissions/s, ` +
      `submitted -> answered p50 ${run.acceptLatencyMs.p50} ms, p99 ${run.acceptLatencyMs.p99} ms; ${run.matched} at the sink ` +
      `(${run.deliveryRate}/s, p99 ${run.sinkLatencyMs.p99} ms), ${run.missing} missing, ${run.duplicates} duplicates`,
    `  CPU ms per mail ${f(run.cpuPerMailMs?.total)} (net of the idle burn ${f(run.netCpuPerMailMs)}; accept side ${f(run.acceptSideMs)}; the app ${f(run.clientCpuPerMailMs)}` +
      `${run.submissionThreadsMs ? `; submission's main thread ${f(run.submissionThreadsMs.main)}, its other threads ${f(run.submissionThreadsMs.others)}` : ''}): ${cpuLine(run.cpu)}`,
    `  database commands per message ${dbLine(run.dbCommandsPerMessage)}`,
  ];
}

export function formatReport(r: SmtpBenchResults): string {
  const s = r.settings;
  return [
    `Content mails, SMTP submission (Nodemailer pool of ${s.connections} connections, ${s.tls === 'starttls' ? 'STARTTLS' : 'implicit TLS'}, ` +
      `${s.messagesPerConnection} messages a connection) against POST …/emails/send (${s.connections} in flight): ` +
      `${s.mails} mails a run, ${s.repeats} repeats, ${s.parseThreads} parse threads`,
    '',
    ...r.repeats.flatMap((repeat, i) => [
      `repeat ${i + 1}:`,
      ...s.paths.flatMap((p) => (repeat.runs[p] ? runLines(repeat.runs[p]).map((l) => `  ${l}`) : [])),
    ]),
    '',
    repeatsTable(r, false),
    '',
    mediansTable(r, false),
    '',
    `SMTP / HTTP (medians of the repeats' ratios): CPU per mail ${f(r.ratios.cpuPerMail, 3)}x, accept side ${f(r.ratios.acceptSide, 3)}x, ` +
      `submissions/s ${f(r.ratios.submissionsPerSecond, 3)}x; CPU per mail against HTTP at the same rate ${f(r.ratios.cpuPerMailAtSameRate, 3)}x, ` +
      `net of the idle burn ${f(r.ratios.netCpuPerMail, 3)}x`,
    `idle burn (no mail): ${cpuLine(r.idle)}`,
    gateLine(r),
    ...(r.warnings.length > 0 ? ['', 'warnings:', ...r.warnings.map((w) => `  - ${w}`)] : []),
    ...(r.failures.length > 0 ? ['', 'FAILED:', ...r.failures.map((w) => `  - ${w}`)] : []),
  ].join('\n');
}

export function formatMarkdown(r: SmtpBenchResults): string {
  return [
    `# SMTP bench, ${r.timestamp} (${r.environment.gitCommit ?? '?'}${r.environment.gitDirty ? ', uncommitted changes' : ''})`,
    '',
    `${r.settings.mails} content mails a run, ${r.settings.connections} SMTP connections (Nodemailer pool, ${r.settings.tls}) ` +
      `against ${r.settings.connections} HTTP requests in flight, ${r.settings.repeats} repeats; ${r.environment.cpus} × ${r.environment.cpuModel}.`,
    '',
    repeatsTable(r, true),
    '',
    mediansTable(r, true),
    '',
    `Idle burn (no mail): ${cpuLine(r.idle)}.`,
    '',
    gateLine(r),
    ...(r.warnings.length > 0 ? ['', ...r.warnings.map((w) => `- ${w}`)] : []),
    ...(r.failures.length > 0 ? ['', '**Failed:**', ...r.failures.map((w) => `- ${w}`)] : []),
  ].join('\n');
}
