/**
 * The services' seed CLIs (services/<svc>/dist/seed.js), run one after the other as child processes into the
 * run's databases: each writes bulk documents of the shapes its service writes, prints progress on stderr and a
 * last stdout line `{"seeded": {...}, "ids": {...}}`.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@postbus/testing';

export type SeededService = 'mailer' | 'users' | 'webhook-dispatcher' | 'payments' | 'erasure';

export interface SeedSizes {
  /** Messages of the seeded project (the mailer writes their timeline events with them). */
  messages: number;
  users: number;
  deliveries: number;
  payments: number;
  /** Erasure records (only if the erasure service has a seed). */
  erasures: number;
  /** Messages (and deliveries) of the one person the run erases at the end. */
  personMessages: number;
  /** Payments of that person. */
  personPayments: number;
}

/** What one seed is asked to do. */
export interface SeedPlan {
  service: SeededService;
  /** The size it was given, as `--count`. */
  count: number;
  /** What `count` counts, for the progress lines and the report. */
  unit: string;
  args: string[];
}

export interface SeedOutcome {
  service: SeededService;
  unit: string;
  count: number;
  /** The CLI's own account, from its last stdout line. */
  seeded: Record<string, unknown>;
  ids: Record<string, unknown>;
  ms: number;
  /** count / s. */
  rate: number;
  log: string;
}

/** BENCH_SEED_ROOT: run the seeds of another (built) checkout, e.g. a branch whose seeds are not merged yet. */
export const seedScript = (service: SeededService): string =>
  join(process.env['BENCH_SEED_ROOT'] || repoRoot, 'services', service, 'dist', 'seed.js');

export const seedAvailable = (service: SeededService): boolean => existsSync(seedScript(service));

/**
 * The seeds to run, in order, with their arguments: each into `projectId` (not the measured project), with the
 * person who has `personMessages` messages. A seed's arguments are the ones its CLI declares (they refuse others).
 */
export function seedPlans(sizes: SeedSizes, target: { projectId: string; clientId: string; person: string }): SeedPlan[] {
  const base = (count: number) => ['--project', target.projectId, '--count', String(count)];
  const person = (count: number) => ['--person', target.person, '--person-count', String(count)];
  const plans: SeedPlan[] = [
    {
      service: 'mailer',
      count: sizes.messages,
      unit: 'messages',
      // The person's messages come on top of --count.
      args: [...base(sizes.messages), ...person(sizes.personMessages)],
    },
    { service: 'users', count: sizes.users, unit: 'users', args: [...base(sizes.users), '--person', target.person] },
    {
      service: 'webhook-dispatcher',
      count: sizes.deliveries,
      unit: 'deliveries',
      args: [...base(sizes.deliveries), '--client', target.clientId, ...person(Math.min(sizes.personMessages, sizes.deliveries))],
    },
    {
      service: 'payments',
      count: sizes.payments,
      unit: 'payments',
      args: [...base(sizes.payments), ...person(Math.min(sizes.personPayments, sizes.payments))],
    },
    { service: 'erasure', count: sizes.erasures, unit: 'erasures', args: base(sizes.erasures) },
  ];
  return plans.filter((plan) => plan.count > 0);
}

/** Runs one seed with the run's environment (MONGO_URL and every service's DB name), reporting its progress lines. */
export function runSeed(
  plan: SeedPlan,
  env: Record<string, string>,
  logName: string,
  progress: (line: string) => void,
  signal: AbortSignal,
): Promise<SeedOutcome> {
  const logDir = join(repoRoot, '.data', 'logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${logName}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const started = Date.now();
  const child = spawn(process.execPath, [seedScript(plan.service), ...plan.args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onAbort = () => child.kill('SIGKILL');
  signal.addEventListener('abort', onAbort, { once: true });
  let stdout = '';
  let lastLine = '';
  let reportedAt = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    log.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    log.write(chunk);
    const lines = chunk.toString('utf8').trim().split('\n');
    lastLine = lines[lines.length - 1] ?? lastLine;
    // One line every 5 s is enough to see it moving and to estimate the rest.
    if (Date.now() - reportedAt >= 5_000) {
      reportedAt = Date.now();
      progress(`  ${plan.service}: ${lastLine.trim()} (${Math.round((Date.now() - started) / 1000)} s)`);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, sig) => {
      signal.removeEventListener('abort', onAbort);
      log.end();
      const ms = Date.now() - started;
      if (code !== 0) {
        reject(new Error(`the ${plan.service} seed exited with ${code ?? sig} after ${ms} ms: ${lastLine.trim()} (see ${logFile})`));
        return;
      }
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        const parsed = JSON.parse(last) as { seeded?: Record<string, unknown>; ids?: Record<string, unknown> };
        resolve({
          service: plan.service,
          unit: plan.unit,
          count: plan.count,
          seeded: parsed.seeded ?? {},
          ids: parsed.ids ?? {},
          ms,
          rate: Math.round((plan.count * 1000) / Math.max(ms, 1)),
          log: logFile.replace(`${repoRoot}/`, ''),
        });
      } catch {
        reject(new Error(`the ${plan.service} seed did not end with a JSON line on stdout: "${last.slice(0, 300)}" (see ${logFile})`));
      }
    });
  });
}

/** The first string among `keys` of a seed's ids (the CLIs name them in their own ways). */
export function idOf(ids: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = ids?.[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
