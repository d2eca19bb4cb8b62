/**
 * Summarises V8 CPU profiles (.cpuprofile, as BENCH_PROFILE writes them) where the time goes: self time by module
 * (a package, a workspace, Node's internals, garbage collection) and by function. For the full picture open the file
 * in Chrome DevTools or https://www.speedscope.app (flame graphs).
 *   node bench/dist/profile-summary.js .data/profiles/<run>/*.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Where a frame's code lives, coarse enough to add up: an npm package, a Postbus workspace, Node itself. */
export function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    const name = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    // Workspaces are linked into node_modules as @postbus/<name>.
    return name ?? url;
  }
  const workspace = /\/(services|libs|sdks|bench)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  byModule: Array<[string, number]>;
  byFunction: Array<[string, number]>;
}

/** Self time of each sample, attributed to the node it hit (time deltas belong to the following sample). */
export function summarise(file: string, profile: Profile, top: number): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i + 1] ?? 0));
  }
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    total += us;
    const module = moduleOf(url, functionName);
    byModule.set(module, (byModule.get(module) ?? 0) + us);
    const name = `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''} [${module}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const sorted = (m: Map<string, number>) =>
    [...m.entries()]
      .sort(([, a], [, b]) => b - a)
      .slice(0, top)
      .map(([k, us]): [string, number] => [k, Math.round(us / 100) / 10]);
  return { file, totalMs: Math.round(total / 1000), byModule: sorted(byModule), byFunction: sorted(byFunction) };
}

function print(summary: ProfileSummary): void {
  const pct = (ms: number) => `${((100 * ms) / Math.max(summary.totalMs, 1)).toFixed(1).padStart(5)} %`;
  console.log(`\n${summary.file}: ${summary.totalMs} ms on CPU (idle left out)`);
  console.log('  by module:');
  for (const [name, ms] of summary.byModule) console.log(`    ${pct(ms)}  ${String(Math.round(ms)).padStart(7)} ms  ${name}`);
  console.log('  by function (self time):');
  for (const [name, ms] of summary.byFunction) console.log(`    ${pct(ms)}  ${String(Math.round(ms)).padStart(7)} ms  ${name}`);
}

function main(): number {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt === -1 ? 25 : Number(args[topAt + 1]);
  const files = args.filter((_, i) => topAt === -1 || (i !== topAt && i !== topAt + 1));
  if (files.length === 0 || !Number.isInteger(top) || top < 1) {
    console.error('usage: node bench/dist/profile-summary.js <file.cpuprofile>... [--top N]');
    return 2;
  }
  for (const file of files) {
    try {
      print(summarise(file, JSON.parse(readFileSync(file, 'utf8')) as Profile, top));
    } catch (error) {
      console.error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  return 0;
}

if (require.main === module) process.exitCode = main();
