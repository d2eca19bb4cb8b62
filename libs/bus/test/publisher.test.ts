import { Topics, topicName } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { defaultKafkaBrokers, TopicRecorder, uniqueName, waitFor } from '@postbus/testing';
import { Bus } from '../src';

/** Issue 13.6: the publisher groups what is published meanwhile, but never past the broker's 1 MB per record batch. */
describe('the publisher against the real broker', () => {
  const namespace = uniqueName('t');
  const brokers = defaultKafkaBrokers().split(',');
  let bus: Bus;
  let recorder: TopicRecorder;

  beforeAll(async () => {
    bus = new Bus({
      brokers,
      service: 'postbus/test',
      logger: createLogger({ service: 'test', level: 'error' }),
      namespace,
      partitions: 1,
      replicationFactor: 1,
      producerLanes: 1,
    });
    await bus.ensureTopics([{ topic: Topics.EmailCommands }, { topic: Topics.EmailBulk }]);
    recorder = await new TopicRecorder(brokers, [topicName(Topics.EmailCommands, namespace)]).start();
  });

  afterAll(async () => {
    await recorder?.stop();
    await bus?.close();
  });

  const trigger = (n: number, blobBytes: number) => ({
    messageId: `msg_big_${n}`,
    projectId: 'p1',
    emailId: 'e1',
    emailKey: 'welcome',
    templateId: 't1',
    templateVersion: 1,
    user: { email: `big${n}@example.org` },
    data: { blob: 'x'.repeat(blobBytes) },
    acceptedAt: new Date().toISOString(),
  });

  it('13.6 two ~600 KB records published together both land (separate produce requests)', async () => {
    // Same key: same lane, published in the same tick, so they would share one request.
    const published = await Promise.allSettled(
      [1, 2].map((n) => bus.publisher.publish(Topics.EmailCommands, 'email.trigger', 'k', trigger(n, 600 * 1024))),
    );
    expect(published.map((p) => p.status)).toEqual(['fulfilled', 'fulfilled']);
    await waitFor(() => Promise.resolve(recorder.ofType('email.trigger').length === 2 || undefined), {
      timeoutMs: 20_000,
      what: 'both records',
    });
  });

  it('13.6 small records published together still share requests and all land', async () => {
    const before = recorder.messages.length;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        bus.publisher.publish(Topics.EmailCommands, 'email.trigger', `k${n}`, {
          messageId: `msg_small_${n}`,
          projectId: 'p1',
          emailId: 'e1',
          emailKey: 'welcome',
          templateId: 't1',
          templateVersion: 1,
          user: { email: `s${n}@example.org` },
          data: { blob: 'x'.repeat(10 * 1024) },
          acceptedAt: new Date().toISOString(),
        }),
      ),
    );
    expect(results).toHaveLength(200);
    await waitFor(() => Promise.resolve(recorder.messages.length - before === 200 || undefined), {
      timeoutMs: 20_000,
      what: 'all small records',
    });
  });

  it('a publish to another topic does not wait behind the bulk topic’s requests (issue 45 item 7)', async () => {
    const acknowledged: string[] = [];
    const bulk = Array.from({ length: 4 }, (_, n) =>
      bus.publisher.publish(Topics.EmailBulk, 'email.bulk_trigger', 'k', trigger(n, 600 * 1024)).then(() => acknowledged.push(`bulk ${n}`)),
    );
    // Published after four produce requests' worth of a batch, on the same key: on a shared producer it would be the last.
    const single = bus.publisher
      .publish(Topics.EmailCommands, 'email.trigger', 'k', trigger(9, 100))
      .then(() => acknowledged.push('single'));
    await Promise.all([...bulk, single]);
    expect(acknowledged.indexOf('single')).toBeLessThan(acknowledged.indexOf('bulk 3'));
  });
});
