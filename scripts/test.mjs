#!/usr/bin/env node
// `npm test` after bootstrap.mjs: the build and the local infrastructure at once, then the two lanes
// of scripts/test-lanes.cjs (the concurrent lane on several workers, then the quiet lane in band),
// then what the run took (the split by lane and tier, the 20 slowest files) and one plain closing
// line over both lanes: "N passed, N failed". Exits non-zero when anything failed. docs/testing.md.
//   node scripts/test.mjs [jest arguments…]       the whole suite (arguments narrow both lanes)
//   node scripts/test.mjs --changed [base]        unit, panel, deploy and integration tests that the
//                                                 change since `base` (default: main) touches
// POSTBUS_TEST_WORKERS sets the concurrent lane's workers (default 3).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, '.data');
const lanesDir = join(dataDir, 'test-lanes');
const workers = process.env.POSTBUS_TEST_WORKERS || '3';
const jestBin = join(root, 'node_modules', 'jest', 'bin', 'jest.js');

const say = (line) => console.log(`[test] ${line}`);
const minutes = (ms) => `${(ms / 60_000).toFixed(1)} min`;

/** Runs a command to its end, its output shown; resolves with its exit code. */
function run(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.once('error', () => resolve(127));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** True when something accepts TCP connections on host:port. */
const portOpen = (host, port) =>
  new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (open) => {
      socket.destroy();
      done(open);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });

/**
 * Starts the local Kafka and FerretDB that are not running, as the tests' globalSetup would, but
 * beside the build instead of after it. What names KAFKA_BROKERS or MONGO_URL is the user's own and
 * left alone (globalSetup checks that it answers). Resolves with what it started.
 */
async function startInfrastructure() {
  const components = [
    { name: 'ferretdb', given: process.env.MONGO_URL, port: 27017 },
    { name: 'kafka', given: process.env.KAFKA_BROKERS, port: 9092 },
  ];
  const started = [];
  for (const { name, given, port } of components) {
    if (given || (await portOpen('127.0.0.1', port))) continue;
    const code = await run('bash', [join(root, 'deploy/local/infra.sh'), 'up', name], { POSTBUS_OWNER_PID: String(process.pid) });
    if (code !== 0) throw new Error(`starting the local ${name} failed (bash deploy/local/infra.sh up ${name})`);
    started.push(name);
  }
  return started;
}

const stopInfrastructure = (started) => {
  for (const name of started) spawnSync('bash', [join(root, 'deploy/local/infra.sh'), 'down', name], { cwd: root, stdio: 'inherit' });
};

/**
 * Heavy work beside the tests (CI builds the container images meanwhile) holds .data/quiet.lock; the
 * quiet lane's timing bounds need the machine to itself, so it takes the lock first (at most 20 min).
 */
async function waitForQuiet() {
  if (spawnSync('flock', ['--version']).status !== 0) return;
  mkdirSync(dataDir, { recursive: true });
  const lock = join(dataDir, 'quiet.lock');
  if (spawnSync('flock', ['--nonblock', lock, 'true']).status === 0) return;
  say('waiting until the heavy work beside the tests is over (it holds .data/quiet.lock)');
  if ((await run('flock', ['--wait', '1200', lock, 'true'])) !== 0) say('still not quiet after 20 min: the quiet lane starts all the same');
}

/** The lanes' summaries that the reporter (scripts/jest-summary-reporter.cjs) wrote. */
const readLane = (lane) => {
  const file = join(lanesDir, `${lane}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
};

function report(lanes, steps) {
  const files = lanes.flatMap((lane) => lane.files.map((file) => ({ ...file, lane: lane.lane })));
  writeFileSync(
    join(dataDir, 'test-durations.json'),
    JSON.stringify(
      files.sort((a, b) => b.seconds - a.seconds),
      null,
      1,
    ),
  );
  console.log('\nWhere the time went:');
  for (const [step, ms] of steps) console.log(`  ${step.padEnd(18)} ${minutes(ms)}`);
  const byTier = new Map();
  for (const file of files) {
    const key = `${file.lane} lane, ${file.tier}`;
    const sum = byTier.get(key) ?? { files: 0, tests: 0, seconds: 0 };
    byTier.set(key, { files: sum.files + 1, tests: sum.tests + file.passed + file.failed, seconds: sum.seconds + file.seconds });
  }
  console.log('\nBy lane and tier (file seconds add up across workers):');
  for (const [key, sum] of [...byTier].sort())
    console.log(
      `  ${key.padEnd(28)} ${String(sum.files).padStart(4)} files ${String(sum.tests).padStart(5)} tests ${sum.seconds.toFixed(0).padStart(6)} s`,
    );
  console.log('\nThe 20 slowest files (all of them: .data/test-durations.json):');
  for (const file of files.slice(0, 20)) console.log(`  ${file.seconds.toFixed(1).padStart(7)} s  ${file.lane.padEnd(10)} ${file.path}`);
}

async function main() {
  const args = process.argv.slice(2);
  const changed = args[0] === '--changed';
  rmSync(lanesDir, { recursive: true, force: true });
  rmSync(join(dataDir, 'test-summary.json'), { force: true });
  mkdirSync(lanesDir, { recursive: true });
  const steps = [];
  const timed = async (step, work) => {
    const started = Date.now();
    try {
      return await work();
    } finally {
      steps.push([step, Date.now() - started]);
    }
  };

  let infrastructure = [];
  let exitCode = 0;
  try {
    // The quick loop's tests run the services from their sources in-process; only tsc's output (libs/testing's helpers) is needed.
    const build = changed ? ['npx', ['tsc', '-b']] : ['npm', ['run', 'build']];
    const [built, started] = await timed('build + infra', () => Promise.all([run(...build), startInfrastructure()]));
    infrastructure = started;
    if (built !== 0) throw new Error('the build failed (npm run build)');

    const lanes = [];
    // Arguments (paths, -t, the changed files' selection) may leave one lane without a file: that is no failure.
    const base = args[1] ?? 'main';
    const jestArgs = changed
      ? ['--selectProjects', 'unit', 'admin', 'deploy', 'integration', `--changedSince=${base}`, '--passWithNoTests']
      : args.length > 0
        ? [...args, '--passWithNoTests']
        : [];
    if (changed) say(`the unit, panel, deploy and integration tests that the change since ${base} touches`);
    const runLane = async (lane, laneArgs) => {
      const code = await timed(`${lane} lane`, () =>
        run(process.execPath, [jestBin, ...laneArgs, ...jestArgs], { POSTBUS_TEST_LANE: lane }),
      );
      exitCode ||= code;
      lanes.push(readLane(lane));
    };
    say(`concurrent lane: ${workers} workers`);
    await runLane('concurrent', [`--maxWorkers=${workers}`]);
    await timed('waiting for quiet', () => waitForQuiet());
    say('quiet lane: in band, one file at a time');
    await runLane('quiet', ['--runInBand']);

    const ran = lanes.filter(Boolean);
    report(ran, steps);
    const passed = ran.reduce((sum, lane) => sum + lane.passed, 0);
    let failed = ran.reduce((sum, lane) => sum + lane.failed, 0);
    // A lane that ended badly without a failing test (jest itself failed, a lane never reported) still fails the run.
    if (exitCode !== 0 && failed === 0) failed = 1;
    writeFileSync(join(dataDir, 'test-summary.json'), JSON.stringify({ passed, failed }));
    console.log(`\n${passed} passed, ${failed} failed`);
    return failed === 0 ? 0 : 1;
  } catch (error) {
    console.error(`[test] ${error.message}`);
    writeFileSync(join(dataDir, 'test-summary.json'), JSON.stringify({ passed: 0, failed: 1 }));
    console.log('\n0 passed, 1 failed');
    return 1;
  } finally {
    stopInfrastructure(infrastructure);
  }
}

process.exitCode = await main();
