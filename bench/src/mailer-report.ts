import type { CpuUsage } from './cpu';
import type { CommandCounts } from './db-counters';
import type { DirectResult } from './direct-sender';
import type { Environment } from './setup';
import type { RegressionCheck } from './mailer-baseline';
import type { Latency } from './stats';

/**
 * Issue 18's goals, as ratios to the direct baseline run in the same process tree: CPU per delivered, signed mail
 * (every process counted, the sink on both sides) at most 1.4x the direct sender's; mail throughput at least 0.8x;
 * and paced at a third of the direct rate, p99 trigger -> sink within 250 ms with nothing lost or duplicated.
 */
export const GOAL_CPU_RATIO = 1.4;
export const GOAL_RATE_RATIO = 0.8;
export const GOAL_PACED_P99_MS = 250;
/** The paced run's rate as a share of the direct baseline's measured rate (BENCH_RATE overrides it). */
export const PACED_SHARE_OF_DIRECT = 1 / 3;

/**
 * The load generators are the client backend's cost, not Postbus's, and are left out of every CPU-per-mail total:
 * the bench process (HTTP triggers) and the SMTP bench's app (smtp-sender.ts).
 */
const NOT_COUNTED = new Set(['bench', 'smtp-client']);

/** CPU milliseconds each process spent per delivered mail during a run, and their total. */
export interface CpuPerMail {
  byProcess: Record<string, number>;
  total: number;
}

export function cpuPerMail(cpu: CpuUsage | null, delivered: number): CpuPerMail | null {
  if (!cpu || delivered <= 0) return null;
  const byProcess: Record<string, number> = {};
  let total = 0;
  for (const [name, ms] of Object.entries(cpu.cpuMs)) {
    if (NOT_COUNTED.has(name)) continue;
    byProcess[name] = Math.round((ms / delivered) * 100) / 100;
    total += ms;
  }
  return { byProcess, total: Math.round((total / delivered) * 100) / 100 };
}

export interface DeliveryCheck {
  triggers: number;
  /** HTTP 200 answers with a message_id. */
  accepted: number;
  /** Answers other than 200, and requests that got no answer. */
  refused: number;
  statusCodes: Record<string, number>;
  firstError: string | null;
  /** Messages at the sink once it stopped growing. */
  arrived: number;
  matched: number;
  missing: number;
  duplicates: number;
  /** Sink entries no trigger of the run accounts for. */
  strangers: number;
}

/** What a Postbus run through to the sink measured, closed loop or paced alike. */
interface SinkRunFigures {
  /** Trigger sent → HTTP answer. */
  httpLatencyMs: Latency;
  /** Trigger sent → sink Created (under saturation in a closed loop). */
  sinkLatencyMs: Latency;
  delivery: DeliveryCheck;
  /** Messages that reached the sink in each second after the first trigger. */
  arrivalsPerSecond: number[];
  cpu: CpuUsage | null;
  cpuPerMailMs: CpuPerMail | null;
  /** Commands the database server ran during the run, per message (the whole server's counters). */
  dbCommandsPerMessage: CommandCounts | null;
}

export interface ThroughputResult extends SinkRunFigures {
  mails: number;
  /** Requests in flight: single sends, or batches when `batchSize` is set. */
  inFlight: number;
  /** Messages per POST …/emails/batch (the last batch may hold fewer); absent for single sends. */
  batchSize?: number;
  /** Triggers a second: matched messages / (first trigger sent → last of them at the sink). */
  rate: number;
  spanMs: number;
  /** HTTP 200s a second: accepted / (first trigger sent → last answer). */
  acceptRate: number;
  acceptSpanMs: number;
}

export interface PacedResult extends SinkRunFigures {
  targetRate: number;
  durationSec: number;
  /** Triggers sent a second, as paced. */
  sentRate: number;
  /** How late the generator sent triggers after they were due. */
  lateMs: Latency;
}

export interface DirectPhase extends DirectResult {
  mails: number;
  inFlight: number;
  maxConnections: number;
  /** How nodemailer got the DKIM key: a KeyObject parsed once, or PEM text parsed at every signature. */
  key: 'keyobject' | 'pem';
  /** What the sink held after the run (should be `mails`). */
  atSink: number;
  cpu: CpuUsage | null;
  cpuPerMailMs: CpuPerMail | null;
}

/** The closed-loop run again with more instances of the consuming services, in the same consumer groups. */
export interface ScaleOutResult {
  instances: Record<string, number>;
  partitions: number;
  throughput: ThroughputResult;
  /** Its rate over the one-instance closed loop's. */
  rateRatio: number;
}

export interface RecordCheck {
  sampled: number;
  sent: number;
  /** Status → count of the sampled messages, as GET /v1/projects/{p}/messages/{id} read them. */
  statuses: Record<string, number>;
  /** Sampled messages that read `sent` only after a second read or more. */
  sentLate: number;
  /** One GET through the gateway (which asks the mailer). */
  readLatencyMs: Latency;
}

/** The closed loop again with an attachment of `bytes` on every send. Measured, not a goal. */
export interface AttachmentResult {
  bytes: number;
  throughput: ThroughputResult;
  cpuRatio: number | null;
}

/**
 * The same mails through POST …/emails/batch and through single sends (IN_FLIGHT at a time), one
 * run right after the other, each until every accepted mail is at the sink. Measured, not a goal.
 */
export interface BatchResult {
  batchSize: number;
  batchesInFlight: number;
  single: ThroughputResult;
  batch: ThroughputResult;
  /** Mails a second to the sink through batches over through single sends. */
  rateRatio: number;
  /** CPU per delivered mail (every process but the load generator) through batches over through single sends. */
  cpuRatio: number | null;
}

/** The runs besides the goals' that one bench run may add. */
export interface ExtraRuns {
  attachment?: AttachmentResult | undefined;
  batch?: BatchResult | undefined;
}

/** Each extra run's closed loops, named as the report names them. */
const extraLoops = ({ attachment, batch }: ExtraRuns): Array<[string, ThroughputResult]> => [
  ...(attachment ? [[`Postbus, ${attachment.bytes / 1024} KB attachment`, attachment.throughput] as [string, ThroughputResult]] : []),
  ...(batch
    ? [
        ['Postbus, single sends (batch baseline)', batch.single] as [string, ThroughputResult],
        [`Postbus, batches of ${batch.batchSize}`, batch.batch] as [string, ThroughputResult],
      ]
    : []),
];

export interface MailerBenchResults {
  timestamp: string;
  runId: string;
  environment: Environment;
  settings: { mails: number; inFlight: number; warmup: number; pacedRate: number; pacedDurationSec: number; smtpPoolConnections: number };
  direct: DirectPhase;
  postbus: { throughput: ThroughputResult; paced: PacedResult; records: RecordCheck; scaleOut: ScaleOutResult | null };
  /**
   * The closed loop again with a 100 KB attachment on every send: CPU per mail with it against
   * the plain closed loop's (`cpuRatio`). Measured, not a goal.
   */
  attachment?: AttachmentResult;
  batch?: BatchResult;
  ratio: number;
  goals: Goals;
  /** The send path's figures over the repeats, against the accepted baseline (mailer-baseline.ts). */
  sendPath?: RegressionCheck;
  logs: Record<string, string>;
  failures: string[];
  warnings: string[];
  ok: boolean;
}

const ratioOf = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);

export interface Goal {
  rule: string;
  limit: number;
  actual: number | null;
  pass: boolean;
}

export interface Goals {
  cpuPerMail: Goal;
  rate: Goal;
  pacedP99: Goal;
}

export function goalsAndRatio(direct: DirectPhase, throughput: ThroughputResult, paced: PacedResult): { ratio: number; goals: Goals } {
  const cpuRatio =
    direct.cpuPerMailMs && throughput.cpuPerMailMs ? ratioOf(throughput.cpuPerMailMs.total, direct.cpuPerMailMs.total) : null;
  const rateRatio = ratioOf(throughput.rate, direct.rate);
  const clean = paced.delivery.missing === 0 && paced.delivery.duplicates === 0 && paced.delivery.refused === 0;
  return {
    ratio: rateRatio,
    goals: {
      cpuPerMail: {
        rule: `CPU ms per delivered mail, all processes, Postbus closed loop <= ${GOAL_CPU_RATIO} x direct`,
        limit: GOAL_CPU_RATIO,
        actual: cpuRatio,
        pass: cpuRatio !== null && cpuRatio <= GOAL_CPU_RATIO,
      },
      rate: {
        rule: `Postbus triggers/s (to the sink) >= ${GOAL_RATE_RATIO} x direct nodemailer signed mails/s`,
        limit: GOAL_RATE_RATIO,
        actual: rateRatio,
        pass: rateRatio >= GOAL_RATE_RATIO,
      },
      pacedP99: {
        rule: `p99 trigger -> sink at ${paced.targetRate} triggers/s <= ${GOAL_PACED_P99_MS} ms, none lost or duplicated`,
        limit: GOAL_PACED_P99_MS,
        actual: paced.sinkLatencyMs.count > 0 ? paced.sinkLatencyMs.p99 : null,
        pass: clean && paced.sinkLatencyMs.count > 0 && paced.sinkLatencyMs.p99 <= GOAL_PACED_P99_MS,
      },
    },
  };
}

function deliveryFailures(name: string, d: DeliveryCheck): string[] {
  const failures: string[] = [];
  if (d.refused > 0)
    failures.push(`${name}: ${d.refused} of ${d.triggers} triggers not accepted (${JSON.stringify(d.statusCodes)}): ${d.firstError}`);
  if (d.missing > 0) failures.push(`${name}: ${d.missing} of ${d.accepted} accepted messages never reached the sink`);
  if (d.duplicates > 0) failures.push(`${name}: ${d.duplicates} duplicate deliveries (same Message-ID twice)`);
  return failures;
}

export function failuresOf(direct: DirectPhase, postbus: MailerBenchResults['postbus'], extra: ExtraRuns = {}): string[] {
  const failures: string[] = [];
  if (direct.failed > 0) failures.push(`direct: ${direct.failed} of ${direct.mails} sendMail calls failed: ${direct.firstError}`);
  if (direct.atSink !== direct.sent) failures.push(`direct: ${direct.sent} answered 250 but the sink holds ${direct.atSink}`);
  failures.push(...deliveryFailures('Postbus throughput', postbus.throughput.delivery));
  failures.push(...deliveryFailures(`Postbus at ${postbus.paced.targetRate}/s`, postbus.paced.delivery));
  if (postbus.scaleOut) failures.push(...deliveryFailures('Postbus scaled out', postbus.scaleOut.throughput.delivery));
  for (const [name, loop] of extraLoops(extra)) failures.push(...deliveryFailures(name, loop.delivery));
  const { records } = postbus;
  if (records.sent < records.sampled)
    failures.push(
      `records: ${records.sampled - records.sent} of ${records.sampled} sampled messages do not read sent (${JSON.stringify(records.statuses)})`,
    );
  return failures;
}

const OTHER_CPU_LIMIT = 0.25;
const GENERATOR_CPU_LIMIT = 0.9;

export function warningsOf(direct: DirectPhase, postbus: MailerBenchResults['postbus'], extra: ExtraRuns = {}): string[] {
  const warnings: string[] = [];
  const runs: Array<[string, CpuUsage | null]> = [
    ['direct', direct.cpu],
    ['Postbus throughput', postbus.throughput.cpu],
    [`Postbus at ${postbus.paced.targetRate}/s`, postbus.paced.cpu],
    ['Postbus scaled out', postbus.scaleOut?.throughput.cpu ?? null],
    ...extraLoops(extra).map(([name, loop]): [string, CpuUsage | null] => [name, loop.cpu]),
  ];
  for (const [name, cpu] of runs) {
    if (cpu && cpu.other >= OTHER_CPU_LIMIT)
      warnings.push(`${name}: other processes used ${cpu.other} of ${cpu.cores} cores; figures unreliable`);
    const generator = cpu?.byProcess['bench'] ?? 0;
    if (generator >= GENERATOR_CPU_LIMIT) warnings.push(`${name}: the load generator used ${generator} cores (saturated)`);
  }
  const { paced } = postbus;
  if (paced.sentRate < 0.95 * paced.targetRate) warnings.push(`paced run: ${paced.sentRate} triggers/s sent of ${paced.targetRate} asked`);
  if (paced.lateMs.p99 > 20) warnings.push(`paced run: the generator sent triggers up to ${paced.lateMs.p99} ms late (p99)`);
  for (const [name, d] of [
    ['Postbus throughput', postbus.throughput.delivery] as const,
    ['paced run', paced.delivery] as const,
    ...extraLoops(extra).map(([loopName, loop]) => [loopName, loop.delivery] as const),
  ]) {
    if (d.strangers > 0) warnings.push(`${name}: ${d.strangers} messages at the sink that no trigger of the run accounts for`);
  }
  return warnings;
}

const f = (value: number, digits = 1) => value.toFixed(digits);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const cpuLine = (cpu: CpuUsage | null): string =>
  cpu
    ? `cores busy ${cpu.busy}/${cpu.cores}: ` +
      Object.entries(cpu.byProcess)
        .filter(([, cores]) => cores >= 0.01)
        .sort(([, a], [, b]) => b - a)
        .map(([name, cores]) => `${name} ${cores}`)
        .join(', ') +
      `, other ${cpu.other}`
    : 'no CPU figures';

export const dbLine = (counts: CommandCounts | null): string =>
  counts
    ? Object.entries(counts)
        .sort(([, a], [, b]) => b - a)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ') || 'none'
    : 'no counters';

const deliveryLine = (d: DeliveryCheck) =>
  `${d.accepted}/${d.triggers} accepted, ${d.matched}/${d.accepted} at the sink, ${d.duplicates} duplicates, ${d.missing} missing`;

const PROCESS_ORDER = ['direct-sender', 'gateway', 'users', 'users-2', 'mailer', 'mailer-2', 'kafka', 'ferretdb', 'smtp-sink'];

/** Rows of CPU ms per delivered mail, a column per run: process by process, then the total. */
function cpuPerMailRows(columns: Array<CpuPerMail | null>): string[][] {
  const names = new Set(columns.flatMap((c) => Object.keys(c?.byProcess ?? {})));
  const ordered = [...PROCESS_ORDER.filter((n) => names.has(n)), ...[...names].filter((n) => !PROCESS_ORDER.includes(n)).sort()];
  const cell = (value: number | undefined) => (value === undefined ? '' : f(value, 2));
  return [
    ...ordered.map((name) => [name, ...columns.map((c) => cell(c?.byProcess[name]))]),
    ['total', ...columns.map((c) => cell(c?.total))],
  ];
}

const runColumns = (r: MailerBenchResults) => {
  const { throughput, paced, scaleOut } = r.postbus;
  return [
    { name: 'direct', cpu: r.direct.cpuPerMailMs },
    { name: 'Postbus closed loop', cpu: throughput.cpuPerMailMs },
    { name: `Postbus paced ${paced.targetRate}/s`, cpu: paced.cpuPerMailMs },
    ...(scaleOut ? [{ name: `Postbus, ${instancesLabel(scaleOut.instances)}`, cpu: scaleOut.throughput.cpuPerMailMs }] : []),
    ...(r.batch
      ? [
          { name: 'Postbus single sends', cpu: r.batch.single.cpuPerMailMs },
          { name: `Postbus batches of ${r.batch.batchSize}`, cpu: r.batch.batch.cpuPerMailMs },
        ]
      : []),
  ];
};

/** The batch comparison in a line: mails a second each way and their ratio, CPU per mail each way and its ratio. */
const batchLine = (b: BatchResult): string =>
  `${b.batch.mails} mails in batches of ${b.batchSize} (${b.batchesInFlight} in flight): ${f(b.batch.rate)} mails/s to the sink ` +
  `against ${f(b.single.rate)} through single sends (${b.single.inFlight} in flight), x${f(b.rateRatio, 3)}; ` +
  `CPU ms per mail ${b.batch.cpuPerMailMs?.total ?? '?'} against ${b.single.cpuPerMailMs?.total ?? '?'} (x${b.cpuRatio ?? '?'})`;

const instancesLabel = (instances: Record<string, number>) =>
  Object.entries(instances)
    .map(([name, n]) => `${n} ${name}`)
    .join(' + ');

const goalLines = (r: MailerBenchResults, verdict: (pass: boolean) => string): string[] => {
  const { cpuPerMail, rate, pacedP99 } = r.goals;
  const value = (v: number | null, unit = '') => (v === null ? 'not measured' : `${v}${unit}`);
  return [
    `goal ${verdict(cpuPerMail.pass)}: ${cpuPerMail.rule}: ${value(cpuPerMail.actual, 'x')}`,
    `goal ${verdict(rate.pass)}: ${rate.rule}: ${value(rate.actual, 'x')}`,
    `goal ${verdict(pacedP99.pass)}: ${pacedP99.rule}: p99 ${value(pacedP99.actual, ' ms')}`,
  ];
};

export function formatReport(r: MailerBenchResults): string {
  const { direct } = r;
  const { throughput: tp, paced, records, scaleOut } = r.postbus;
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
  const lat = (l: Latency) => [f(l.p50), f(l.p99), f(l.max)];
  const columns = runColumns(r);
  return [
    `Signed mail to one SMTP sink: ${r.settings.mails} messages each way, ${r.settings.inFlight} in flight, ` +
      `SMTP pools of ${r.settings.smtpPoolConnections} connections, RSA-2048 DKIM, after ${r.settings.warmup} warm-up messages`,
    '',
    table(
      ['run', 'rate/s', 'p50 ms', 'p99 ms', 'max ms', 'latency of'],
      [
        [
          `direct nodemailer, 1 process (dkim option, key as ${direct.key})`,
          f(direct.rate),
          ...lat(direct.latencyMs),
          'sendMail -> resolved',
        ],
        ['Postbus, closed loop', f(tp.rate), ...lat(tp.sinkLatencyMs), 'trigger -> at sink'],
        ['  its HTTP accepts', f(tp.acceptRate), ...lat(tp.httpLatencyMs), 'trigger -> 200'],
        [
          `Postbus, paced at ${paced.targetRate}/s for ${paced.durationSec} s`,
          f(paced.sentRate),
          ...lat(paced.sinkLatencyMs),
          'trigger -> at sink',
        ],
        ['  its HTTP accepts', '', ...lat(paced.httpLatencyMs), 'trigger -> 200'],
        ...(scaleOut
          ? [
              [
                `Postbus, closed loop, ${instancesLabel(scaleOut.instances)}`,
                f(scaleOut.throughput.rate),
                ...lat(scaleOut.throughput.sinkLatencyMs),
                'trigger -> at sink',
              ],
            ]
          : []),
        ...(r.batch
          ? [
              [
                'Postbus, single sends (batch baseline)',
                f(r.batch.single.rate),
                ...lat(r.batch.single.sinkLatencyMs),
                'trigger -> at sink',
              ],
              ['  its HTTP accepts', f(r.batch.single.acceptRate), ...lat(r.batch.single.httpLatencyMs), 'trigger -> 200'],
              [
                `Postbus, batches of ${r.batch.batchSize}, ${r.batch.batchesInFlight} in flight`,
                f(r.batch.batch.rate),
                ...lat(r.batch.batch.sinkLatencyMs),
                'batch sent -> at sink',
              ],
              ['  its HTTP accepts (mails/s)', f(r.batch.batch.acceptRate), ...lat(r.batch.batch.httpLatencyMs), 'batch -> 200'],
            ]
          : []),
      ],
    ),
    '',
    'CPU ms per delivered mail (the load generator left out):',
    table(['process', ...columns.map((c) => c.name)], cpuPerMailRows(columns.map((c) => c.cpu))),
    '',
    `ratio Postbus/direct (mails/s): ${f(r.ratio, 3)}` +
      (scaleOut
        ? `; ${instancesLabel(scaleOut.instances)} over 1 each: ${f(scaleOut.rateRatio, 3)} (${scaleOut.partitions} partitions)`
        : ''),
    ...goalLines(r, verdict),
    ...(r.attachment
      ? [
          `a ${r.attachment.bytes / 1024} KB attachment on every send: CPU ms per mail ${r.attachment.throughput.cpuPerMailMs?.total ?? '?'} ` +
            `against ${tp.cpuPerMailMs?.total ?? '?'} without (x${r.attachment.cpuRatio ?? '?'}); ${deliveryLine(r.attachment.throughput.delivery)}`,
        ]
      : []),
    ...(r.batch ? [batchLine(r.batch)] : []),
    '',
    `direct:              ${direct.sent}/${direct.mails} answered 250, ${direct.atSink} at the sink; ${cpuLine(direct.cpu)}`,
    `Postbus closed loop: ${deliveryLine(tp.delivery)}; ${cpuLine(tp.cpu)}`,
    `Postbus paced:       ${deliveryLine(paced.delivery)}; ${cpuLine(paced.cpu)}`,
    ...(scaleOut ? [`Postbus scaled out:  ${deliveryLine(scaleOut.throughput.delivery)}; ${cpuLine(scaleOut.throughput.cpu)}`] : []),
    ...(r.batch
      ? [
          `Postbus single:      ${deliveryLine(r.batch.single.delivery)}; ${cpuLine(r.batch.single.cpu)}`,
          `Postbus batches:     ${deliveryLine(r.batch.batch.delivery)}; ${cpuLine(r.batch.batch.cpu)}`,
          `DB commands/message: single ${dbLine(r.batch.single.dbCommandsPerMessage)}; batches ${dbLine(r.batch.batch.dbCommandsPerMessage)}`,
        ]
      : []),
    `DB commands/message: closed loop ${dbLine(tp.dbCommandsPerMessage)}; paced ${dbLine(paced.dbCommandsPerMessage)}`,
    `records:             ${records.sent}/${records.sampled} sampled messages read "sent" through GET /v1/projects/{p}/messages/{id}` +
      (records.sentLate > 0 ? ` (${records.sentLate} only on a later read)` : '') +
      `; a read took p50 ${f(records.readLatencyMs.p50)} ms, max ${f(records.readLatencyMs.max)} ms`,
    `logs:                ${Object.entries(r.logs)
      .map(([name, file]) => `${name} ${file}`)
      .join(', ')}`,
    ...(r.warnings.length > 0 ? ['', 'warnings:', ...r.warnings.map((w) => `  - ${w}`)] : []),
    ...(r.failures.length > 0 ? ['', 'FAILURES:', ...r.failures.map((w) => `  - ${w}`)] : []),
  ].join('\n');
}

const markdownTable = (header: string[], rows: string[][]): string =>
  [header, header.map((_, i) => (i === 0 ? '---' : '---:')), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

/** The run as Markdown (bench/results/mailer-latest.md, linked from the README). */
export function formatMarkdown(r: MailerBenchResults): string {
  const { direct } = r;
  const { throughput: tp, paced, scaleOut } = r.postbus;
  const columns = runColumns(r);
  const verdict = (pass: boolean) => (pass ? '**PASS**' : '**MISS**');
  const rates: string[][] = [
    ['direct nodemailer, signed', f(direct.rate), f(direct.latencyMs.p50), f(direct.latencyMs.p99)],
    ['Postbus, closed loop', f(tp.rate), f(tp.sinkLatencyMs.p50), f(tp.sinkLatencyMs.p99)],
    [`Postbus, paced at ${paced.targetRate}/s`, f(paced.sentRate), f(paced.sinkLatencyMs.p50), f(paced.sinkLatencyMs.p99)],
    ...(scaleOut
      ? [
          [
            `Postbus, closed loop, ${instancesLabel(scaleOut.instances)}`,
            f(scaleOut.throughput.rate),
            f(scaleOut.throughput.sinkLatencyMs.p50),
            f(scaleOut.throughput.sinkLatencyMs.p99),
          ],
        ]
      : []),
    ...(r.batch
      ? [
          [
            `Postbus, ${r.batch.single.mails} single sends`,
            f(r.batch.single.rate),
            f(r.batch.single.sinkLatencyMs.p50),
            f(r.batch.single.sinkLatencyMs.p99),
          ],
          [
            `Postbus, the same in batches of ${r.batch.batchSize}`,
            f(r.batch.batch.rate),
            f(r.batch.batch.sinkLatencyMs.p50),
            f(r.batch.batch.sinkLatencyMs.p99),
          ],
        ]
      : []),
  ];
  return [
    `# Mail benchmark, ${r.timestamp}`,
    '',
    `Commit ${r.environment.gitCommit}${r.environment.gitDirty ? ' (with uncommitted changes)' : ''}, ${r.environment.cpus} × ${r.environment.cpuModel}, Node ${r.environment.node}. ` +
      `${r.settings.mails} RSA-2048 DKIM-signed mails each way, ${r.settings.inFlight} in flight, SMTP pools of ${r.settings.smtpPoolConnections}.`,
    '',
    '## Goals',
    '',
    ...goalLines(r, verdict).map((line) => `- ${line}`),
    '',
    ...(r.batch ? ['## Batches', '', `- ${batchLine(r.batch)}`, ''] : []),
    '## Rates and latency (ms; direct: sendMail → resolved, Postbus: trigger → at the sink)',
    '',
    markdownTable(['run', 'mails/s', 'p50', 'p99'], rates),
    '',
    '## CPU milliseconds per delivered mail',
    '',
    "Each process's user + system time over the run, divided by the mails delivered in it; the load generator is left out.",
    '',
    markdownTable(['process', ...columns.map((c) => c.name)], cpuPerMailRows(columns.map((c) => c.cpu))),
    '',
    ...(r.warnings.length > 0 ? ['## Warnings', '', ...r.warnings.map((w) => `- ${w}`), ''] : []),
    ...(r.failures.length > 0 ? ['## Failures', '', ...r.failures.map((w) => `- ${w}`), ''] : []),
  ].join('\n');
}
