import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@postbus/testing';
import type { Child } from './children';

/**
 * The frame every benchmark runs in: SIGINT/SIGTERM, or a child process dying while it runs,
 * aborts `signal`; the children it started are stopped newest first.
 */
export class BenchRun {
  private readonly interrupted = new AbortController();
  readonly signal: AbortSignal = this.interrupted.signal;
  readonly children: Child[] = [];
  /** Processes whose CPU use each run reports. */
  readonly watch: Record<string, number | undefined> = { bench: process.pid };
  private stopping = false;

  private readonly interrupt = (sig: NodeJS.Signals) => {
    this.progress(`${sig}: stopping`);
    this.interrupted.abort(new Error(`interrupted by ${sig}`));
  };

  /** `progress` writes a line of the benchmark's own running commentary. */
  constructor(private readonly progress: (message: string) => void) {
    process.once('SIGINT', this.interrupt);
    process.once('SIGTERM', this.interrupt);
  }

  /** Takes a started child into the run: watched for CPU, stopped at the end, its death aborts the run. */
  readonly started = (child: Child): Child => {
    this.children.push(child);
    this.watch[child.name] = child.pid;
    void child.exited.then((how) => {
      if (!this.stopping && !this.retired.has(child))
        this.interrupted.abort(new Error(`${child.name} ${how} while the benchmark ran (see ${child.log})`));
    });
    return child;
  };

  private readonly retired = new Set<Child>();

  /** Stops a child the run no longer needs (its exit aborts nothing). */
  readonly retire = async (child: Child): Promise<void> => {
    this.retired.add(child);
    this.children.splice(this.children.indexOf(child), 1);
    await child.stop();
  };

  /** Each child's log file, relative to the repository, for the results (which are read from there). */
  logs(): Record<string, string> {
    return Object.fromEntries(this.children.map((c) => [c.name, c.log.replace(`${repoRoot}/`, '')]));
  }

  /** The run is over: signals are no longer caught, and the children stop, newest first. */
  async stopChildren(): Promise<void> {
    this.stopping = true;
    process.off('SIGINT', this.interrupt);
    process.off('SIGTERM', this.interrupt);
    for (const child of this.children.reverse()) {
      this.progress(`stopping ${child.name} (pid ${child.pid ?? '?'})`);
      await child.stop().catch((error: unknown) => this.progress(`could not stop ${child.name}: ${String(error)}`));
    }
  }
}

/**
 * bench/results/<name>-<timestamp>.json (colons made dashes, for every file system) and the latest copy; with
 * `markdown`, also the latest copy's .md beside it.
 */
/** bench/results/: every run's JSON, the latest of each, and the baselines. */
export const resultsDir = (): string => join(repoRoot, 'bench', 'results');

export function saveResults(name: string, results: { timestamp: string }, latest = `${name}-latest.json`, markdown?: string): string[] {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(results, null, 2)}\n`;
  const files = [join(dir, `${name}-${results.timestamp.replace(/:/g, '-')}.json`), join(dir, latest)];
  for (const file of files) writeFileSync(file, json);
  if (markdown !== undefined) {
    const file = join(dir, latest.replace(/\.json$/, '.md'));
    writeFileSync(file, `${markdown}\n`);
    files.push(file);
  }
  return files;
}

/** Runs a benchmark's main: its answer is the exit code; a failure is one line, not a stack trace. */
export function runBench(label: string, main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`${label} failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
