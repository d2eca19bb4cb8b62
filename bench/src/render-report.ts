/** The render bench's results, its gate and their summary (console and Markdown). */
import type { Environment } from './setup';

/** Issue 51: a render with a layout and a language variant costs at most this many times a plain render. */
export const GOAL_LAYOUT_RATIO = 1.2;

/** One template's renders: the median of its rounds' µs a render, each round's, and the size of what it renders. */
export interface RenderFigures {
  medianUs: number;
  /** The process's CPU (all its threads) a render, median of the rounds. */
  medianCpuUs: number;
  roundsUs: number[];
  htmlChars: number;
  textChars: number;
}

export interface RenderBenchResults {
  timestamp: string;
  environment: Environment;
  settings: { iterations: number; rounds: number; mjmlRenders: number };
  /** The mail bench's template, on this thread. */
  plain: RenderFigures;
  /** The same mail as a layout around a German body, on this thread. */
  layoutVariant: RenderFigures;
  /** The German mail in one piece (no layout), on this thread: the variant's words apart from the layout's render. */
  variantInOnePiece: RenderFigures;
  /** The mail in MJML, through TemplateEngine's pool (one worker thread), one render after the other. */
  mjml: RenderFigures;
  /** The first MJML render: the thread loads mjml, then compiles, validates and renders the template. */
  firstMjmlRenderMs: number;
  /** Of CPU per render: layoutVariantToPlain, the median of each round's ratio (its two runs side by side); mjmlToPlain, of the medians. */
  ratios: { layoutVariantToPlain: number; variantInOnePieceToPlain: number; mjmlToPlain: number };
  goal: { rule: string; pass: boolean };
}

const ROWS = [
  ['plain (this thread)', 'plain'],
  ['layout + German variant (this thread)', 'layoutVariant'],
  ['German variant in one piece (this thread)', 'variantInOnePiece'],
  ['MJML (pool, one at a time)', 'mjml'],
] as const;

function rows(r: RenderBenchResults): string[][] {
  const ratio = {
    plain: 1,
    layoutVariant: r.ratios.layoutVariantToPlain,
    variantInOnePiece: r.ratios.variantInOnePieceToPlain,
    mjml: r.ratios.mjmlToPlain,
  };
  return ROWS.map(([label, key]) => [
    label,
    r[key].medianCpuUs.toFixed(1),
    r[key].medianUs.toFixed(1),
    ratio[key].toFixed(2),
    String(r[key].htmlChars),
    `${Math.min(...r[key].roundsUs).toFixed(1)}–${Math.max(...r[key].roundsUs).toFixed(1)}`,
  ]);
}

const HEADER = ['template', 'CPU µs / render', 'wall µs / render', '× plain (CPU)', 'HTML chars', 'rounds (wall µs)'];

const verdict = (r: RenderBenchResults) => `${r.goal.rule}: ${r.ratios.layoutVariantToPlain} — ${r.goal.pass ? 'met' : 'MISSED'}`;

/** The console's table. */
export function formatTable(r: RenderBenchResults): string {
  const table = [HEADER, ...rows(r)];
  const widths = HEADER.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [...table.map(line), '', `first MJML render (the thread loads mjml): ${r.firstMjmlRenderMs} ms`, verdict(r)].join('\n');
}

/** render-latest.md. */
export function formatMarkdown(r: RenderBenchResults): string {
  const env = r.environment;
  return [
    `# npm run bench:render — ${r.timestamp}`,
    '',
    `Commit ${env.gitCommit ?? '?'}${env.gitDirty ? ' (with changes)' : ''}, ${env.cpus} × ${env.cpuModel}, Node ${env.node}; ` +
      `${r.settings.rounds} rounds of ${r.settings.iterations} renders each on this thread, ${r.settings.mjmlRenders} MJML renders in the pool.`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `| ${HEADER.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`,
    ...rows(r).map((row) => `| ${row.join(' | ')} |`),
    '',
    `First MJML render (the thread loads mjml): ${r.firstMjmlRenderMs} ms.`,
    '',
    `Goal: ${verdict(r)}.`,
  ].join('\n');
}
