import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { connectDb, type Connection } from '@postbus/db';
import { defaultKafkaBrokers, defaultMongoUrl, registerTestRun, removeTestRunData, testRunToken, uniqueName } from '@postbus/testing';

const kafka = new Kafka({ brokers: defaultKafkaBrokers().split(','), clientId: 'test-run-test', logLevel: logLevel.NOTHING });
const admin = kafka.admin();
let mongo: Connection;

/** A run whose owner has exited: its pid is one of a process that is gone. */
function finishedRun(): string {
  const token = `tr${randomBytes(3).toString('hex')}`;
  registerTestRun(token, spawnSync(process.execPath, ['-e', '0']).pid);
  return token;
}

async function makeTopicAndDatabase(name: string): Promise<void> {
  await admin.createTopics({ topics: [{ topic: `postbus.cleanup.v1.${name}`, numPartitions: 1 }], waitForLeaders: true });
  const db = mongo.useDb(name.replace(/-/g, '_'), { useCache: false });
  await db.collection('things').insertOne({ made: true });
}

async function present(name: string): Promise<{ topic: boolean; database: boolean }> {
  const topics = await admin.listTopics();
  const { databases } = await mongo.db!.admin().listDatabases({ nameOnly: true });
  return {
    topic: topics.includes(`postbus.cleanup.v1.${name}`),
    database: databases.some((d) => d.name === name.replace(/-/g, '_')),
  };
}

beforeAll(async () => {
  await admin.connect();
  mongo = await connectDb({ url: defaultMongoUrl(), dbName: 'admin' });
});

afterAll(async () => {
  await admin.disconnect();
  await mongo.close();
});

describe('the data a test run leaves', () => {
  it('is removed once its run is over; live runs and names without a run token are kept', async () => {
    const over = finishedRun();
    const finishedName = `t-${over}-${randomBytes(4).toString('hex')}`;
    const liveName = uniqueName('t'); // this run's token: its jest process is alive
    const untokened = `keep-${randomBytes(4).toString('hex')}`;
    for (const name of [finishedName, liveName, untokened]) await makeTopicAndDatabase(name);

    const removed = await removeTestRunData();

    expect(removed.topics).toBeGreaterThanOrEqual(1);
    expect(removed.databases).toBeGreaterThanOrEqual(1);
    expect(await present(finishedName)).toEqual({ topic: false, database: false });
    expect(await present(liveName)).toEqual({ topic: true, database: true });
    expect(await present(untokened)).toEqual({ topic: true, database: true });
    expect(liveName).toContain(testRunToken());

    await admin.deleteTopics({ topics: [`postbus.cleanup.v1.${untokened}`] });
    await mongo.useDb(untokened.replace(/-/g, '_'), { useCache: false }).dropDatabase();
  });
});
