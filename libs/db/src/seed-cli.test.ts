import type { Connection } from 'mongoose';
import { runSeedCli, type SeedCli, type SeedIo } from './seed-cli';

/** A run of `cli` with these arguments, against a fake database; what it wrote and its exit code. */
async function run(cli: SeedCli<any, any>, argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const connected: Array<{ url: string; dbName: string }> = [];
  let closed = 0;
  const io: SeedIo = {
    argv,
    env,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    connect: (options) => {
      connected.push({ url: options.url, dbName: options.dbName });
      return Promise.resolve({ close: () => Promise.resolve(void closed++) } as unknown as Connection);
    },
  };
  const code = await runSeedCli(cli, io);
  return { code, out: out.join(''), err: err.join(''), connected, closed };
}

const things = (over: Partial<SeedCli<{ days: { type: 'string'; default: string }; tag: { type: 'string' } }, unknown>> = {}) =>
  ({
    service: 'things',
    database: 'THINGS_DB_NAME',
    defaultCount: 10,
    options: { days: { type: 'string', default: '7' }, tag: { type: 'string' } },
    usage: '[--days <n>] [--tag <text>]',
    parse: ({ projectId, count, values, wholeNumber }) => ({ projectId, count, days: wholeNumber('days'), tag: values.tag ?? null }),
    seed: (_connection, args, { progress }) => {
      progress('half way');
      return Promise.resolve({ seeded: args });
    },
    ...over,
  }) satisfies SeedCli<any, any>;

describe('runSeedCli', () => {
  it('seeds into the database the environment names, with progress on stderr and one JSON line on stdout', async () => {
    const r = await run(things(), ['--project', 'prj_1', '--count', '5', '--tag', 'x'], {
      MONGO_URL: 'mongodb://db:27017',
      THINGS_DB_NAME: 'run_things',
    });
    expect(r.code).toBe(0);
    expect(r.connected).toEqual([{ url: 'mongodb://db:27017', dbName: 'run_things' }]);
    expect(r.out).toBe(`${JSON.stringify({ seeded: { projectId: 'prj_1', count: 5, days: 7, tag: 'x' } })}\n`);
    expect(r.err).toMatch(/^things seed: half way \(\d+\.\d s\)\n$/);
    expect(r.closed).toBe(1);
  });

  it("uses the service's defaults when the environment names no database, and --count's default", async () => {
    const r = await run(things(), ['--project', 'prj_1']);
    expect(r.connected).toEqual([{ url: 'mongodb://127.0.0.1:27017', dbName: 'postbus_things' }]);
    expect(JSON.parse(r.out)).toMatchObject({ seeded: { count: 10 } });
  });

  it.each([
    [['--count', '5'], '--project <id> is required'],
    [['--project', 'p', '--count=-1'], '--count must be a whole number'],
    [['--project', 'p', '--days', '1.5'], '--days must be a whole number'],
    [['--project', 'p', '--colour', 'red'], "Unknown option '--colour'"],
  ])('refuses %j before connecting: exit code 2 and the usage', async (argv, message) => {
    const r = await run(things(), argv);
    expect(r.code).toBe(2);
    expect(r.connected).toEqual([]);
    expect(r.out).toBe('');
    expect(r.err).toContain(message);
    expect(r.err).toContain('usage: node services/things/dist/seed.js --project <id> [--count <n>] [--days <n>] [--tag <text>]');
  });

  it('requires --count when the seed has no default', async () => {
    const r = await run(things({ defaultCount: undefined }), ['--project', 'p']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--count <n> is required');
    expect(r.err).toContain('--project <id> --count <n> [--days');
  });

  it('refuses from within the seed (exit code 2) and fails on an error (exit code 1), closing the database either way', async () => {
    const refused = await run(things({ seed: (_c, _a, { fail }) => Promise.resolve(fail('no such project')) }), ['--project', 'p']);
    expect(refused).toMatchObject({ code: 2, out: '', closed: 1 });
    expect(refused.err).toContain('things seed: no such project');
    const failed = await run(
      things({
        seed: () => Promise.reject(new Error('disk full')),
      }),
      ['--project', 'p'],
    );
    expect(failed).toMatchObject({ code: 1, out: '', closed: 1 });
    expect(failed.err).toMatch(/^things seed failed: Error: disk full/);
  });
});
