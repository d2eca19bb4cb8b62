import { parseArgs } from 'node:util';
import type { Connection } from 'mongoose';
import { connectDb, type DbOptions } from './connect';

/**
 * What the services' seed CLIs (services/<service>/dist/seed.js, run by `npm run bench:data`)
 * share: `--project <id> --count <n>` and their own options, the service's database from
 * MONGO_URL and its *_DB_NAME, progress lines on stderr, one JSON line on stdout, and the exit
 * code: 0 seeded, 2 arguments refused (with the usage), 1 failed.
 */

/** A seed's own options: strings, as parseArgs reads them. */
type StringOptions = Record<string, { type: 'string'; default?: string }>;
type Values<O extends StringOptions> = { [K in keyof O]: O[K] extends { default: string } ? string : string | undefined };

/** The arguments as given, for a seed to check and convert before anything is connected. */
export interface SeedRequest<O extends StringOptions> {
  projectId: string;
  count: number;
  /** The seed's own options. */
  values: Values<O>;
  /** Option `name` as a whole number; undefined when unset (and without a default). */
  wholeNumber: (name: keyof O & string) => number | undefined;
  /** Refuses the arguments: exit code 2, the message and the usage on stderr. */
  fail: (message: string) => never;
}

/** What a seed writes with: progress lines, and the refusal of its arguments still. */
export interface SeedOutput {
  progress: (line: string) => void;
  fail: (message: string) => never;
}

export interface SeedCli<O extends StringOptions, A> {
  /** The service's folder: named in the usage and in every line the seed writes ("users seed: …"). */
  service: string;
  /** The variable naming the service's database (`<NAME>_DB_NAME`; unset, postbus_<name>: the services' default). */
  database: `${string}_DB_NAME`;
  /** `--count` when not given; without it, --count is required. */
  defaultCount?: number;
  /** The options besides --project and --count. */
  options: O;
  /** Those options, for the usage line. */
  usage: string;
  /** Checks and converts the arguments (request.fail refuses them), before anything is connected. */
  parse: (request: SeedRequest<O>) => A;
  /** Writes the documents; answers what the last line on stdout says. `fail` refuses the arguments still. */
  seed: (connection: Connection, args: A, io: SeedOutput) => Promise<unknown>;
}

/** Where a seed reads and writes: the process's, or a test's. */
export interface SeedIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  connect: (options: DbOptions) => Promise<Connection>;
}

const processIo = (): SeedIo => ({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  connect: connectDb,
});

class Refused extends Error {}

/** Arguments refused: by the seed, or by parseArgs (an unknown option, a missing value). */
const refused = (error: unknown): error is Error => {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Refused || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
};

/** Runs a seed CLI to its end; answers its exit code. */
export async function runSeedCli<O extends StringOptions, A>(cli: SeedCli<O, A>, io: SeedIo = processIo()): Promise<number> {
  const fail = (message: string): never => {
    throw new Refused(message);
  };
  const count = cli.defaultCount === undefined ? '--count <n>' : `[--count <n>]`;
  let connection: Connection | undefined;
  try {
    const { values } = parseArgs({
      args: io.argv,
      options: {
        ...cli.options,
        project: { type: 'string' },
        count: { type: 'string', ...(cli.defaultCount !== undefined ? { default: String(cli.defaultCount) } : {}) },
      },
    }) as { values: Record<string, string | undefined> };
    const wholeNumber = (name: string): number | undefined => {
      const text = values[name];
      if (text === undefined) return undefined;
      const n = Number(text);
      if (text.trim() === '' || !Number.isInteger(n) || n < 0) fail(`--${name} must be a whole number`);
      return n;
    };
    const args = cli.parse({
      projectId: values.project ?? fail('--project <id> is required'),
      count: wholeNumber('count') ?? fail('--count <n> is required'),
      values: values as Values<O>,
      wholeNumber,
      fail,
    });
    connection = await io.connect({
      url: io.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017',
      dbName: io.env[cli.database] ?? `postbus_${cli.database.replace(/_DB_NAME$/, '').toLowerCase()}`,
    });
    const started = Date.now();
    const progress = (line: string) => io.stderr(`${cli.service} seed: ${line} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    const result = await cli.seed(connection, args, { progress, fail });
    io.stdout(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (refused(error)) {
      io.stderr(
        `${cli.service} seed: ${error.message}\nusage: node services/${cli.service}/dist/seed.js --project <id> ${count} ${cli.usage}\n`,
      );
      return 2;
    }
    io.stderr(`${cli.service} seed failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  } finally {
    await connection?.close();
  }
}

/** A seed.ts's entry point: runs the CLI when the file is the program (not when a test imports it). */
export function seedCommand<O extends StringOptions, A>(mod: NodeModule, cli: SeedCli<O, A>): void {
  if (require.main !== mod) return;
  void runSeedCli(cli).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
