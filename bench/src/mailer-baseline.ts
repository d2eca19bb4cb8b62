import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * The mail bench's regression gate (issue 47): the figures of the send path that a feature must not
 * quietly raise, as ratios to the direct nodemailer run measured in the same repeat (so a slower or
 * busier machine moves both sides). The bench runs its direct, closed-loop and paced runs
 * BENCH_REPEATS times (3), takes the median of each figure, compares it with the last accepted
 * baseline in bench/results/baseline.json, and fails when CPU per mail rose more than 15 % or the
 * paced p99 more than 50 %. A change that costs more on purpose accepts a new baseline with
 * BENCH_ACCEPT_BASELINE=1 (see bench/README.md).
 */
export const CPU_RISE_LIMIT = 0.15;
export const PACED_P99_RISE_LIMIT = 0.5;

/** One repeat's figures. */
export interface SendPathFigures {
  /** CPU per delivered mail, every process but the load generator, closed loop, over the direct sender's. */
  cpuPerMailRatio: number;
  /** The paced run's trigger → sink p99 over the direct sender's p99 send latency. */
  pacedP99Ratio: number;
  /** The closed loop's mails a second over the direct sender's. */
  rateRatio: number;
  /** The same in milliseconds, for the reader: they vary with the machine, the ratios much less. */
  cpuPerMailMs: number;
  directCpuPerMailMs: number;
  pacedP99Ms: number;
  directP99Ms: number;
}

export interface SendPathBaseline {
  acceptedAt: string;
  /** What was measured: the repository's commit, when known. */
  commit: string | null;
  /** The median of `repeats`. */
  figures: SendPathFigures;
  repeats: SendPathFigures[];
}

/** bench/results/baseline.json: one baseline per bench that has one. */
export interface BaselineFile {
  mailer?: SendPathBaseline;
}

export interface RegressionCheck {
  baseline: SendPathBaseline | null;
  repeats: SendPathFigures[];
  median: SendPathFigures;
  /** The median's change against the baseline (0.1 = 10 % more), null without a baseline. */
  cpuPerMailChange: number | null;
  pacedP99Change: number | null;
  /** What rose past its limit; empty when the run keeps to the baseline (or there is none). */
  regressions: string[];
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

export function figuresOf(
  direct: { cpuPerMailMs: number; p99Ms: number; rate: number },
  closedLoop: { cpuPerMailMs: number; rate: number },
  pacedP99Ms: number,
): SendPathFigures {
  return {
    cpuPerMailRatio: round3(closedLoop.cpuPerMailMs / direct.cpuPerMailMs),
    pacedP99Ratio: round3(pacedP99Ms / direct.p99Ms),
    rateRatio: round3(closedLoop.rate / direct.rate),
    cpuPerMailMs: closedLoop.cpuPerMailMs,
    directCpuPerMailMs: direct.cpuPerMailMs,
    pacedP99Ms,
    directP99Ms: direct.p99Ms,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : round3((sorted[mid - 1]! + sorted[mid]!) / 2);
};

/** Each figure's median over the repeats (figure by figure: no one repeat need hold them all). */
export function medianOf(repeats: SendPathFigures[]): SendPathFigures {
  if (repeats.length === 0) throw new Error('no repeat to take a median of');
  const keys = Object.keys(repeats[0]!) as Array<keyof SendPathFigures>;
  return Object.fromEntries(keys.map((key) => [key, median(repeats.map((r) => r[key]))])) as unknown as SendPathFigures;
}

const change = (now: number, then: number): number => round3(now / then - 1);
const percent = (fraction: number) => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)} %`;

export function checkAgainst(baseline: SendPathBaseline | null, repeats: SendPathFigures[]): RegressionCheck {
  const now = medianOf(repeats);
  if (!baseline) return { baseline, repeats, median: now, cpuPerMailChange: null, pacedP99Change: null, regressions: [] };
  const then = baseline.figures;
  const cpuPerMailChange = change(now.cpuPerMailRatio, then.cpuPerMailRatio);
  const pacedP99Change = change(now.pacedP99Ratio, then.pacedP99Ratio);
  const regressions: string[] = [];
  if (cpuPerMailChange > CPU_RISE_LIMIT)
    regressions.push(
      `CPU per mail rose ${percent(cpuPerMailChange)} over the baseline (${now.cpuPerMailRatio} x direct against ${then.cpuPerMailRatio}); at most ${percent(CPU_RISE_LIMIT)}`,
    );
  if (pacedP99Change > PACED_P99_RISE_LIMIT)
    regressions.push(
      `the paced p99 rose ${percent(pacedP99Change)} over the baseline (${now.pacedP99Ratio} x direct's p99 against ${then.pacedP99Ratio}); at most ${percent(PACED_P99_RISE_LIMIT)}`,
    );
  return { baseline, repeats, median: now, cpuPerMailChange, pacedP99Change, regressions };
}

/** The check as the bench prints it. */
export function formatCheck(check: RegressionCheck): string {
  const { median: m, baseline } = check;
  const lines = [
    `send path over ${check.repeats.length} repeat(s), median: CPU per mail ${m.cpuPerMailMs} ms (${m.cpuPerMailRatio} x direct's ${m.directCpuPerMailMs} ms), ` +
      `paced p99 ${m.pacedP99Ms} ms (${m.pacedP99Ratio} x direct's p99 ${m.directP99Ms} ms), rate ${m.rateRatio} x direct`,
    ...check.repeats.map(
      (r, i) =>
        `  repeat ${i + 1}: CPU per mail ${r.cpuPerMailMs} ms (${r.cpuPerMailRatio} x), paced p99 ${r.pacedP99Ms} ms (${r.pacedP99Ratio} x), rate ${r.rateRatio} x`,
    ),
  ];
  if (!baseline) lines.push('no baseline in bench/results/baseline.json: accept this run as one with BENCH_ACCEPT_BASELINE=1');
  else
    lines.push(
      `against the baseline of ${baseline.acceptedAt}${baseline.commit ? ` (${baseline.commit.slice(0, 7)})` : ''}: ` +
        `CPU per mail ${percent(check.cpuPerMailChange!)} (limit ${percent(CPU_RISE_LIMIT)}), paced p99 ${percent(check.pacedP99Change!)} (limit ${percent(PACED_P99_RISE_LIMIT)})` +
        (check.regressions.length === 0 ? ': kept' : `: REGRESSED\n  ${check.regressions.join('\n  ')}`),
    );
  return lines.join('\n');
}

export function readBaselines(file: string): BaselineFile {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BaselineFile) : {};
}

/** Accepts the check's median as the mail bench's new baseline (the other benches' stay as they are). */
export function acceptBaseline(file: string, check: RegressionCheck, commit: string | null, at = new Date()): SendPathBaseline {
  const baseline: SendPathBaseline = { acceptedAt: at.toISOString(), commit, figures: check.median, repeats: check.repeats };
  writeFileSync(file, `${JSON.stringify({ ...readBaselines(file), mailer: baseline }, null, 2)}\n`);
  return baseline;
}
