import { Topics } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { defaultKafkaBrokers, uniqueName } from '@postbus/testing';
import { Bus, type Reader } from '../src';

/** A reader finds a record by the time it was written, on any partition, against the real broker. */
describe('a topic reader against the real broker', () => {
  const namespace = uniqueName('t');
  let bus: Bus;
  let reader: Reader;

  beforeAll(async () => {
    bus = new Bus({
      brokers: defaultKafkaBrokers().split(','),
      service: 'postbus/test',
      logger: createLogger({ service: 'test', level: 'error' }),
      namespace,
      partitions: 3,
      replicationFactor: 1,
    });
    await bus.ensureTopics([{ topic: Topics.EmailCommands }]);
    reader = await bus.startReader(`postbus-test-reader-${namespace}`, [Topics.EmailCommands], 2_000);
  });

  afterAll(async () => {
    await bus?.close();
  });

  const trigger = (messageId: string, email: string) => ({
    messageId,
    projectId: 'p1',
    emailId: 'e1',
    emailKey: 'welcome',
    templateId: 't1',
    templateVersion: 1,
    user: { email },
    data: {},
    acceptedAt: new Date().toISOString(),
  });
  const publish = (n: number) =>
    bus.publisher.publish(Topics.EmailCommands, 'email.trigger', `key-${n}`, trigger(`msg_${n}`, `r${n}@x.example`));
  const lookFor = (messageId: string, from: number, until = from + 5_000) =>
    reader.find({ topic: Topics.EmailCommands, from, until, match: (value) => value.includes(`"messageId":"${messageId}"`) });

  it('finds each of many records, on whichever partition it is, by the time it was written; and none that was never written', async () => {
    const before = Date.now();
    await Promise.all(Array.from({ length: 60 }, (_, n) => publish(n)));
    const written = Date.now();
    await Promise.all(Array.from({ length: 60 }, (_, n) => publish(100 + n)));

    const found = await Promise.all([0, 17, 59, 100, 159].map((n) => lookFor(`msg_${n}`, before)));
    expect(found.map((record) => (JSON.parse(record!.value.toString()) as { messageId: string }).messageId)).toEqual([
      'msg_0',
      'msg_17',
      'msg_59',
      'msg_100',
      'msg_159',
    ]);
    expect(new Set(found.map((record) => record!.partition)).size).toBeGreaterThan(1);

    // Looked for from after it was written: not there.
    expect(await lookFor('msg_0', written + 1)).toBeUndefined();
    const started = performance.now();
    expect(await lookFor('msg_never', before)).toBeUndefined();
    // Every partition read to its end, within the budget.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('stops at records written after its window', async () => {
    const from = Date.now();
    await publish(500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await publish(501);
    expect(await lookFor('msg_501', from, from + 1)).toBeUndefined();
    expect(await lookFor('msg_501', from)).toBeDefined();
  });
});
