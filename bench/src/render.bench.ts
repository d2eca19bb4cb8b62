/**
 * The render benchmark (issue 51): what a layout, a language variant and MJML cost a render, in one process,
 * without the rest of the system. On this thread, each template compiled once (compile(), as the mailer keeps it):
 * (a) the mail bench's template as it is; (b) the same mail as a layout (document, header, footer) around a German
 * variant of its body, same variables. Their renders alternate, round by round, after a warm-up; each figure is the
 * median of its rounds. The ratio is of CPU time (the process's, so a busy machine's waits are left out), the median of
 * the rounds' ratios (each round's two runs side by side). Gate: (b) costs at most 1.2 × (a). (c) the mail as MJML, rendered through TemplateEngine's
 * pool one after the other (a thread hop each, as every MJML render takes): stated, no gate. Run with
 * `npm run bench:render` (or `npm run bench`). Results go to bench/results/render-<timestamp>.json and
 * render-latest.json (and .md).
 *   BENCH_RENDER_ITERATIONS=3000  renders of each template in one round
 *   BENCH_RENDER_ROUNDS=15        rounds of each (alternating)
 *   BENCH_MJML_RENDERS=400        MJML renders through the pool (after 50 to warm up)
 */
import { compile, TemplateEngine, type CompiledTemplate, type RenderContext, type TemplateParts } from '@postbus/templates';
import { BENCH_TEMPLATE, dataOf, userOf } from './mail-template';
import { envCount } from './options';
import { formatMarkdown, formatTable, GOAL_LAYOUT_RATIO, type RenderBenchResults, type RenderFigures } from './render-report';
import { runBench, saveResults } from './run';
import { environment } from './setup';

const STARTED = Date.now();
const progress = (message: string) => console.log(`[render ${((Date.now() - STARTED) / 1000).toFixed(1).padStart(6)} s] ${message}`);

/** The mail's frame, shared by every language: the document, a header and the footer. */
const LAYOUT = {
  html: [
    '<!doctype html><html><body style="font-family: Helvetica, Arial, sans-serif; color: #222">',
    '<div style="font-size: 14px; font-weight: bold">{{data.product}}</div>',
    '{{{content}}}',
    '<p style="color: #888; font-size: 12px">{{data.product}}, 1 Example Street, Springfield</p>',
    '</body></html>',
  ].join('\n'),
};

/** The mail's body in German: the bench template's words translated, its variables the same. */
const GERMAN_BODY: TemplateParts = {
  subject: 'Bestätigen Sie Ihre Adresse, {{user.name}}',
  html: [
    '<h1 style="font-size: 20px">Willkommen bei {{data.product}}, {{user.name}}</h1>',
    '<p>Hallo {{user.name}}, danke für Ihre Anmeldung. Ihr Bestätigungscode lautet <strong>{{data.code}}</strong>;',
    'er läuft in 15 Minuten ab.</p>',
    '<p><a href="https://app.bench.example/confirm?code={{data.code}}">Adresse bestätigen</a></p>',
    '<table role="presentation"><tr><td>Tarif</td><td>{{user.plan}}</td></tr><tr><td>Konto</td><td>{{user.email}}</td></tr></table>',
    '<p>Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren.</p>',
  ].join('\n'),
  layout: LAYOUT,
};

/** The German mail in one piece, no layout: what the variant's words cost apart from the layout's render. */
const GERMAN_IN_ONE_PIECE: TemplateParts = { subject: GERMAN_BODY.subject, html: LAYOUT.html.replace('{{{content}}}', GERMAN_BODY.html) };

/** The bench template's mail written in MJML. */
const MJML_TEMPLATE: TemplateParts = {
  subject: BENCH_TEMPLATE.subject,
  format: 'mjml',
  html: [
    '<mjml>',
    '  <mj-head><mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" color="#222" /></mj-attributes></mj-head>',
    '  <mj-body>',
    '    <mj-section><mj-column>',
    '      <mj-text font-size="20px">Welcome to {{data.product}}, {{user.name}}</mj-text>',
    '      <mj-text>Hi {{user.name}}, thanks for signing up. Your confirmation code is <strong>{{data.code}}</strong>;',
    '      it expires in 15 minutes.</mj-text>',
    '      <mj-button href="https://app.bench.example/confirm?code={{data.code}}">Confirm your address</mj-button>',
    '      <mj-table><tr><td>Plan</td><td>{{user.plan}}</td></tr><tr><td>Account</td><td>{{user.email}}</td></tr></mj-table>',
    '      <mj-text>If you did not ask for this, you can ignore this email.</mj-text>',
    '      <mj-text color="#888" font-size="12px">{{data.product}}, 1 Example Street, Springfield</mj-text>',
    '    </mj-column></mj-section>',
    '  </mj-body>',
    '</mjml>',
  ].join('\n'),
};

/** Contexts the renders cycle through: a different recipient and code each time, as a run of sends has. */
const CONTEXTS: RenderContext[] = Array.from({ length: 64 }, (_, n) => ({ user: userOf('render', n), data: dataOf(n) }));

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const round2 = (value: number) => Math.round(value * 100) / 100;

/** A round's µs a render: by the wall clock, and of the whole process's CPU (every thread: the pool's, the GC's). */
interface RoundTime {
  us: number;
  cpuUs: number;
}

/** Starts timing a round of `renders` renders: what it answers, called when they are done, says what they took. */
function startRound(renders: number): () => RoundTime {
  const cpuAtStart = process.cpuUsage();
  const started = performance.now();
  return () => {
    const cpu = process.cpuUsage(cpuAtStart);
    return { us: ((performance.now() - started) * 1000) / renders, cpuUs: (cpu.user + cpu.system) / renders };
  };
}

/** `renders` renders of a template compiled on this thread, back to back. */
function timeRenders(template: CompiledTemplate, renders: number): RoundTime {
  const done = startRound(renders);
  for (let i = 0; i < renders; i++) template(CONTEXTS[i % CONTEXTS.length]!);
  return done();
}

/** `renders` renders done by `render` (given the index of each), one after the other. */
async function timeRound(renders: number, render: (i: number) => Promise<unknown>): Promise<RoundTime> {
  const done = startRound(renders);
  for (let i = 0; i < renders; i++) await render(i);
  return done();
}

function figuresOf(rounds: RoundTime[], sample: { html: string; text: string }): RenderFigures {
  return {
    medianUs: round2(median(rounds.map((r) => r.us))),
    medianCpuUs: round2(median(rounds.map((r) => r.cpuUs))),
    roundsUs: rounds.map((r) => round2(r.us)),
    htmlChars: sample.html.length,
    textChars: sample.text.length,
  };
}

async function main(): Promise<number> {
  const iterations = envCount('BENCH_RENDER_ITERATIONS', 3_000);
  const rounds = envCount('BENCH_RENDER_ROUNDS', 15);
  const mjmlRenders = envCount('BENCH_MJML_RENDERS', 400);

  const templates = {
    plain: compile(BENCH_TEMPLATE),
    layoutVariant: compile(GERMAN_BODY),
    variantInOnePiece: compile(GERMAN_IN_ONE_PIECE),
  };
  type Name = keyof typeof templates;
  const names = Object.keys(templates) as Name[];
  const first = CONTEXTS[0]!;
  progress(`warming up: ${iterations} renders of each`);
  for (const name of names) timeRenders(templates[name], iterations);
  const runs = Object.fromEntries(names.map((name) => [name, [] as RoundTime[]])) as Record<Name, RoundTime[]>;
  for (let r = 0; r < rounds; r++) {
    // Each round starts with another template, so none always follows another's garbage.
    const order = names.map((_, i) => names[(i + r) % names.length]!);
    for (const name of order) runs[name].push(timeRenders(templates[name], iterations));
    const shown = (run: RoundTime) => `${run.cpuUs.toFixed(1)} µs CPU (${run.us.toFixed(1)} µs)`;
    progress(`round ${r + 1}/${rounds}: ${names.map((name) => `${name} ${shown(runs[name][r]!)}`).join(', ')}`);
  }

  progress(`MJML through the pool: ${mjmlRenders} renders, one after the other`);
  const engine = new TemplateEngine({ threads: 1 });
  let mjml: RenderFigures;
  let firstMjmlMs: number;
  try {
    const template = { key: 'bench-mjml:1', parts: MJML_TEMPLATE, cheap: false };
    const started = performance.now();
    const mjmlSample = await engine.render(template, first, 'bench');
    firstMjmlMs = performance.now() - started;
    const renderMjml = (i: number) => engine.render(template, CONTEXTS[i % CONTEXTS.length]!, 'bench');
    await timeRound(50, renderMjml);
    const mjmlRounds: RoundTime[] = [];
    const perRound = Math.max(1, Math.round(mjmlRenders / rounds));
    for (let r = 0; r < rounds; r++) mjmlRounds.push(await timeRound(perRound, renderMjml));
    mjml = figuresOf(mjmlRounds, mjmlSample);
  } finally {
    await engine.close();
  }

  const figures = Object.fromEntries(names.map((name) => [name, figuresOf(runs[name], templates[name](first))])) as Record<
    Name,
    RenderFigures
  >;
  /** The median of the rounds' ratios of CPU a render: each round's runs side by side. */
  const ratioTo = (name: Name) => round2(median(runs[name].map((run, r) => run.cpuUs / runs.plain[r]!.cpuUs)));
  const layoutRatio = ratioTo('layoutVariant');
  const results: RenderBenchResults = {
    timestamp: new Date().toISOString(),
    environment: await environment(),
    settings: { iterations, rounds, mjmlRenders },
    ...figures,
    mjml,
    firstMjmlRenderMs: Math.round(firstMjmlMs),
    ratios: {
      layoutVariantToPlain: layoutRatio,
      variantInOnePieceToPlain: ratioTo('variantInOnePiece'),
      mjmlToPlain: round2(mjml.medianCpuUs / figures.plain.medianCpuUs),
    },
    goal: { rule: `layout + variant render <= ${GOAL_LAYOUT_RATIO} x plain render`, pass: layoutRatio <= GOAL_LAYOUT_RATIO },
  };
  console.log(`\n${formatTable(results)}\n`);
  for (const file of saveResults('render', results, 'render-latest.json', formatMarkdown(results))) progress(`wrote ${file}`);
  return results.goal.pass ? 0 : 1;
}

runBench('render bench', main);
