import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectDb } from '@postbus/db';
import { Kafka, logLevel } from 'kafkajs';
import { defaultKafkaBrokers, defaultMongoUrl } from './infra';

/*
 * Every name a test or a bench makes for itself (Kafka namespaces, consumer groups, databases)
 * carries the token of the run that made it, so the run can remove what it made. Left behind,
 * they pile up: Kafka keeps a file open per partition and refused to go on at its open-files
 * limit after a few full runs against one broker (KafkaStorageException "Too many open files").
 * A run is registered as a file named by its token holding the pid that owns it; a token whose
 * owner is gone is stale, and the next run removes what it left. The registry belongs to the
 * infrastructure, not to a checkout: runs from two checkouts (a CI clone, a worktree) on one
 * broker must see each other, or each would take the other's live data for a dead run's.
 */

/** `tr` and six hex digits: `r` is no hex digit, so a random hex suffix never looks like one. */
const TOKEN = /tr[0-9a-f]{6}/g;
const ENV = 'POSTBUS_TEST_RUN';

const infrastructure = () => `${defaultKafkaBrokers()}|${defaultMongoUrl()}`;
const runsDir = () => join(tmpdir(), `postbus-test-runs-${createHash('sha256').update(infrastructure()).digest('hex').slice(0, 12)}`);
/** Pids tell live runs only on this machine: with a remote broker, other machines' runs may be live. */
const onThisMachine = () =>
  infrastructure()
    .split(/[|,]/)
    .every((address) => /^(mongodb:\/\/)?(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/.*)?$/.test(address));

/** Registers a run's token with the pid that owns it. */
export function registerTestRun(token: string, pid: number): void {
  mkdirSync(runsDir(), { recursive: true });
  writeFileSync(join(runsDir(), token), String(pid));
}

/**
 * This run's token. A jest run gets one in globalSetup, before its workers start, so they inherit
 * it; any other process (a bench, a script) registers one of its own on first use.
 */
export function testRunToken(): string {
  let token = process.env[ENV];
  if (!token || !/^tr[0-9a-f]{6}$/.test(token)) {
    token = `tr${randomBytes(3).toString('hex')}`;
    registerTestRun(token, process.pid);
    process.env[ENV] = token;
  }
  return token;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The tokens of runs whose owner is still alive. */
function liveTokens(): Set<string> {
  const live = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(runsDir());
  } catch {
    return live;
  }
  for (const token of names) {
    const pid = Number(readFileSync(join(runsDir(), token), 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) live.add(token);
    else rmSync(join(runsDir(), token), { force: true });
  }
  return live;
}

export interface RemovedTestData {
  topics: number;
  groups: number;
  databases: number;
}

/**
 * Removes the topics, consumer groups and databases of runs that are over: stale runs (on this
 * machine's infrastructure), and with `finished` the given run too (its own teardown). Names of
 * live runs and names without a token (the demo's, an operator's) are never touched.
 */
export async function removeTestRunData(finished?: string): Promise<RemovedTestData> {
  const live = liveTokens();
  if (finished) {
    live.delete(finished);
    rmSync(join(runsDir(), finished), { force: true });
  }
  const local = onThisMachine();
  const over = (name: string): boolean => {
    const tokens = name.match(TOKEN);
    if (tokens === null) return false;
    return local ? tokens.every((token) => !live.has(token)) : tokens.every((token) => token === finished);
  };
  const removed: RemovedTestData = { topics: 0, groups: 0, databases: 0 };

  const kafka = new Kafka({ brokers: defaultKafkaBrokers().split(','), clientId: 'test-cleanup', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter(over);
    for (let i = 0; i < topics.length; i += 200) {
      const batch = topics.slice(i, i + 200);
      await admin.deleteTopics({ topics: batch, timeout: 60_000 });
      removed.topics += batch.length;
    }
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId).filter(over);
    if (groups.length > 0) {
      try {
        await admin.deleteGroups(groups);
        removed.groups = groups.length;
      } catch (error) {
        // A group a member still holds (one killed without leaving, until its session expires)
        // cannot go yet; it holds no open file, and the next run removes it.
        const refused = (error as { groups?: unknown[] }).groups;
        if (!Array.isArray(refused)) throw error;
        removed.groups = groups.length - refused.length;
      }
    }
  } finally {
    await admin.disconnect();
  }

  const connection = await connectDb({ url: defaultMongoUrl(), dbName: 'admin', connectTimeoutMs: 10_000 });
  try {
    const { databases } = await connection.db!.admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (!over(name)) continue;
      await connection.useDb(name, { useCache: false }).dropDatabase();
      removed.databases++;
    }
  } finally {
    await connection.close();
  }
  return removed;
}

/** Runs removeTestRunData and says what it removed; a failure is reported, never fatal to the run. */
export async function cleanUpTestRuns(finished?: string): Promise<void> {
  const started = Date.now();
  try {
    const removed = await removeTestRunData(finished);
    if (removed.topics + removed.groups + removed.databases > 0) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `[test-data] removed ${removed.topics} topics, ${removed.groups} consumer groups and ${removed.databases} databases of finished test runs (${seconds} s)`,
      );
    }
  } catch (error) {
    console.warn(`[test-data] could not remove the data of finished test runs: ${(error as Error).message}`);
  }
}
