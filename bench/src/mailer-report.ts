import type { CpuUsage } from './cpu';
import type { CommandCounts } from './db-counters';
import type { DirectResult } from './direct-sender';
import type { Environment } from './setup';
import type { Latency } from './stats';

/** The issue's goals: Postbus sends signed, durably recorded mail faster than one nodemailer process does. */
export const GOAL_RATE_RATIO = 1.3;
export const GOAL_PACED_P99_MS = 250;

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

export interface ThroughputResult {
  mails: number;
  inFlight: number;
  /** Triggers a second: matched messages / (first trigger sent → last of them at the sink). */
  rate: number;
  spanMs: number;
  /** HTTP 200s a second: accepted / (first trigger sent → last answer). */
  acceptRate: number;
  acceptSpanMs: number;
  /** Trigger sent → HTTP answer. */
  httpLatencyMs: Latency;
  /** Trigger sent → sink Created, under saturation. */
  sinkLatencyMs: Latency;
  delivery: DeliveryCheck;
  /** Messages that reached the sink in each second after the first trigger. */
  arrivalsPerSecond: number[];
  cpu: CpuUsage | null;
  /** Commands the database server ran during the run, per message (the whole server's counters). */
  dbCommandsPerMessage: CommandCounts | null;
}

export interface PacedResult {
  targetRate: number;
  durationSec: number;
  /** Triggers sent a second, as paced. */
  sentRate: number;
  /** How late the generator sent triggers after they were due. */
  lateMs: Latency;
  httpLatencyMs: Latency;
  /** Trigger sent → sink Created. */
  sinkLatencyMs: Latency;
  delivery: DeliveryCheck;
  arrivalsPerSecond: number[];
  cpu: CpuUsage | null;
  dbCommandsPerMessage: CommandCounts | null;
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

export interface MailerBenchResults {
  timestamp: string;
  runId: string;
  environment: Environment;
  settings: { mails: number; inFlight: number; warmup: number; pacedRate: number; pacedDurationSec: number; smtpPoolConnections: number };
  direct: DirectPhase;
  postbus: { throughput: ThroughputResult; paced: PacedResult; records: RecordCheck };
  ratio: number;
  goals: {
    rate: { rule: string; required: number; actual: number; pass: boolean };
    pacedP99: { rule: string; limitMs: number; actualMs: number; pass: boolean };
  };
  logs: Record<string, string>;
  failures: string[];
  warnings: string[];
  ok: boolean;
}

const ratioOf = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);

export function goalsAndRatio(direct: DirectPhase, throughput: ThroughputResult, paced: PacedResult) {
  const required = Math.round(GOAL_RATE_RATIO * direct.rate * 10) / 10;
  return {
    ratio: ratioOf(throughput.rate, direct.rate),
    goals: {
      rate: {
        rule: `Postbus triggers/s (to the sink) >= ${GOAL_RATE_RATIO} x direct nodemailer signed mails/s`,
        required,
        actual: throughput.rate,
        pass: throughput.rate >= required,
      },
      pacedP99: {
        rule: `p99 trigger -> sink at ${paced.targetRate} triggers/s < ${GOAL_PACED_P99_MS} ms`,
        limitMs: GOAL_PACED_P99_MS,
        actualMs: paced.sinkLatencyMs.p99,
        pass: paced.sinkLatencyMs.count > 0 && paced.sinkLatencyMs.p99 < GOAL_PACED_P99_MS,
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

export function failuresOf(direct: DirectPhase, postbus: MailerBenchResults['postbus']): string[] {
  const failures: string[] = [];
  if (direct.failed > 0) failures.push(`direct: ${direct.failed} of ${direct.mails} sendMail calls failed: ${direct.firstError}`);
  if (direct.atSink !== direct.sent) failures.push(`direct: ${direct.sent} answered 250 but the sink holds ${direct.atSink}`);
  failures.push(...deliveryFailures('Postbus throughput', postbus.throughput.delivery));
  failures.push(...deliveryFailures(`Postbus at ${postbus.paced.targetRate}/s`, postbus.paced.delivery));
  const { records } = postbus;
  if (records.sent < records.sampled)
    failures.push(
      `records: ${records.sampled - records.sent} of ${records.sampled} sampled messages do not read sent (${JSON.stringify(records.statuses)})`,
    );
  return failures;
}

const OTHER_CPU_LIMIT = 0.25;
const GENERATOR_CPU_LIMIT = 0.9;

export function warningsOf(direct: DirectPhase, postbus: MailerBenchResults['postbus']): string[] {
  const warnings: string[] = [];
  const runs: Array<[string, CpuUsage | null]> = [
    ['direct', direct.cpu],
    ['Postbus throughput', postbus.throughput.cpu],
    [`Postbus at ${postbus.paced.targetRate}/s`, postbus.paced.cpu],
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
    ['Postbus throughput', postbus.throughput.delivery],
    ['paced run', paced.delivery],
  ] as const) {
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

export function formatReport(r: MailerBenchResults): string {
  const { direct } = r;
  const { throughput: tp, paced, records } = r.postbus;
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
  const lat = (l: Latency) => [f(l.p50), f(l.p99), f(l.max)];
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
      ],
    ),
    '',
    `ratio Postbus/direct (mails/s): ${f(r.ratio, 3)}`,
    `goal ${verdict(r.goals.rate.pass)}: ${r.goals.rate.rule}: ${f(r.goals.rate.actual)} vs ${f(r.goals.rate.required)} required`,
    `goal ${verdict(r.goals.pacedP99.pass)}: ${r.goals.pacedP99.rule}: p99 ${f(r.goals.pacedP99.actualMs)} ms`,
    '',
    `direct:              ${direct.sent}/${direct.mails} answered 250, ${direct.atSink} at the sink; ${cpuLine(direct.cpu)}`,
    `Postbus closed loop: ${deliveryLine(tp.delivery)}; ${cpuLine(tp.cpu)}`,
    `Postbus paced:       ${deliveryLine(paced.delivery)}; ${cpuLine(paced.cpu)}`,
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
