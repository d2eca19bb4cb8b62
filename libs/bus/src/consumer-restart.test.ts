import type { Kafka } from 'kafkajs';
import type { Logger } from '@postbus/logger';
import type { Publisher } from './publisher';
import { MessageConsumer } from './consumer';

/** A kafkajs consumer that records its calls and crashes when told to. */
function fakeKafka() {
  const listeners = new Map<string, Array<(event: { payload: unknown }) => void>>();
  const calls: string[] = [];
  const consumer = {
    events: { GROUP_JOIN: 'group_join', CRASH: 'crash' },
    on: (event: string, listener: (event: { payload: unknown }) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return () => undefined;
    },
    connect: () => (calls.push('connect'), Promise.resolve()),
    subscribe: () => (calls.push('subscribe'), Promise.resolve()),
    run: () => (calls.push('run'), Promise.resolve()),
    disconnect: () => (calls.push('disconnect'), Promise.resolve()),
  };
  const crash = (restart: boolean) =>
    (listeners.get('crash') ?? []).forEach((listener) =>
      listener({ payload: { error: new Error('Failed to find group coordinator'), restart } }),
    );
  return { kafka: { consumer: () => consumer } as unknown as Kafka, calls, crash };
}

const logger = { warn: () => undefined, info: () => undefined, error: () => undefined } as unknown as Logger;

describe('a consumer that kafkajs leaves stopped after a crash', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const start = async () => {
    const fake = fakeKafka();
    const consumer = new MessageConsumer(fake.kafka, {
      groupId: 'g',
      handlers: [],
      logger,
      publisher: {} as Publisher,
      resolveTopic: (topic) => topic,
    });
    await consumer.start();
    return { ...fake, consumer };
  };
  const runs = (calls: string[]) => calls.filter((call) => call === 'run').length;

  it('is started again after a pause, once however many crashes ask for it', async () => {
    const { calls, crash } = await start();
    expect(runs(calls)).toBe(1);
    crash(false);
    crash(false);
    expect(runs(calls)).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs(calls)).toBe(2);
    expect(calls.slice(-3)).toEqual(['connect', 'subscribe', 'run']);
  });

  it('is left to kafkajs when kafkajs restarts it itself, and stays stopped once the service stops', async () => {
    const { calls, crash, consumer } = await start();
    crash(true);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs(calls)).toBe(1);
    crash(false);
    await consumer.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs(calls)).toBe(1);
  });
});
