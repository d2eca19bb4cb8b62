import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { consumerGroupLag, GroupTimings } from '@postbus/bus';
import { ConsumerGroups, Topics, topicName } from '@postbus/contracts';
import { call, freePort, repoRoot, TopicRecorder, waitFor } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type RunningSystem } from './system';

/** A Kafka broker of this test's own, so that stopping it disturbs no other test. */
async function startOwnBroker() {
  const [port, controllerPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'postbus-kafka-'));
  const env = { ...process.env, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controllerPort), POSTBUS_DATA_DIR: dataDir };
  const infra = (command: string) => execFileSync('bash', [join(repoRoot, 'deploy/local/infra.sh'), command], { env, stdio: 'inherit' });
  infra('up');
  return {
    brokers: `127.0.0.1:${port}`,
    stop() {
      infra('down');
    },
    start() {
      infra('up');
    },
    remove() {
      rmSync(dataDir, { recursive: true, force: true });
    },
    /** SIGSTOP: the broker holds its connections but answers nothing (a long GC pause, a stalled disk) until thaw(). */
    freeze() {
      process.kill(Number(readFileSync(join(dataDir, 'run', 'kafka.pid'), 'utf8')), 'SIGSTOP');
    },
    thaw() {
      process.kill(Number(readFileSync(join(dataDir, 'run', 'kafka.pid'), 'utf8')), 'SIGCONT');
    },
  };
}

describe('when Kafka cannot take a request', () => {
  let broker: Awaited<ReturnType<typeof startOwnBroker>>;
  let system: RunningSystem;

  beforeAll(async () => {
    broker = await startOwnBroker();
    system = await startSystem({ KAFKA_BROKERS: broker.brokers, KAFKA_ACK_TIMEOUT_MS: '3000' });
  });

  afterAll(async () => {
    broker?.thaw();
    await system?.stop();
    broker?.stop();
    broker?.remove();
  });

  it('the gateway answers 503 with Retry-After, never 200', async () => {
    const client = await createClientAndProject(system);
    const create = (email: string) =>
      call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/users`, { auth: client.auth, json: { email } });
    expect((await create('before@example.com')).status).toBe(200);

    broker.stop();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(`during-${i}@example.com`)));
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body).toMatchObject({ status: 503, type: '/problems/service-unavailable' });
    }
    const again = await create('later@example.com');
    expect(again.status).toBe(503);
    // and the load balancer is told to stop sending traffic here
    expect((await call(system.gatewayUrl, 'GET', '/readyz')).status).toBe(503);
  });

  it('when the broker is back, the gateway accepts again without a restart', async () => {
    const client = await createClientAndProject(system);
    broker.start();
    const accepted = await waitFor(
      async () => {
        const res = await call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/users`, {
          auth: client.auth,
          json: { email: 'after@example.com' },
        });
        return res.status === 200 ? res : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: 'a 200 after the broker came back' },
    );
    expect(accepted.body.status).toBe('accepted');
    expect((await call(system.gatewayUrl, 'GET', '/readyz')).status).toBe(200);
  });

  it('45.9 a send answered 503 whose write lands afterwards, retried with its Idempotency-Key, is one message and one mail', async () => {
    const client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: 'mail.outage.example' });
    const ns = system.env['KAFKA_NAMESPACE']!;
    const commandsTopic = topicName(Topics.EmailCommands, ns);
    const triggers = await new TopicRecorder([broker.brokers], [commandsTopic]).start();
    const send = () =>
      call(system.gatewayUrl, 'POST', `/v1/projects/${client.projectId}/emails/welcome/send`, {
        auth: client.auth,
        headers: { 'idempotency-key': 'order-4711' },
        json: { user: { email: 'once@example.org', name: 'Once' }, data: {} },
      });
    try {
      // The produce request waits in the frozen broker's socket: the gateway gives up after
      // KAFKA_ACK_TIMEOUT_MS and answers 503, and the broker writes it once it runs again.
      broker.freeze();
      let first;
      try {
        first = await send();
      } finally {
        broker.thaw();
      }
      expect(first.status).toBe(503);
      const retried = await waitFor(
        async () => {
          const res = await send();
          return res.status === 200 ? res : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1000, what: 'the retry accepted' },
      );
      const id = retried.body.message_id as string;
      // Both writes are on the bus, naming the same message.
      const written = await waitFor(
        () => {
          const mine = triggers
            .ofType('email.trigger')
            .filter((m) => (m.value as { user: { email: string } }).user.email === 'once@example.org');
          return mine.length >= 2 ? mine : undefined;
        },
        // The recorder is a consumer too: after the freeze it may wait out a rebalance, as the mailer's do below.
        { timeoutMs: GroupTimings.rebalanceTimeoutMs + 30_000, what: 'the first attempt’s write and the retry’s' },
      );
      expect(written.map((m) => (m.value as { messageId: string }).messageId)).toEqual([id, id]);
      // The freeze (and the broker killed in the test before) sends the mailer's consumers back
      // through a rejoin, which may wait out a rebalance: the mail comes once they
      // are back. What is asserted is one mail, not how soon.
      await system.sink.client.waitForMessageId(`${id}@mail.outage.example`, GroupTimings.rebalanceTimeoutMs + 30_000);
      // The mailer has read past both: one mail went, and the message list holds one message.
      const admin = new Kafka({ brokers: [broker.brokers], clientId: 'bus-outage-test', logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        await waitFor(
          async () => (await consumerGroupLag(admin, topicName(ConsumerGroups.mailerTriggers, ns), [commandsTopic])).total === 0,
          {
            timeoutMs: 30_000,
            what: 'the mailer past both triggers',
          },
        );
      } finally {
        await admin.disconnect();
      }
      expect((await system.sink.client.search('to:once@example.org')).messages).toHaveLength(1);
      const listed = await waitFor(
        async () => {
          const res = await call(system.gatewayUrl, 'GET', `/v1/projects/${client.projectId}/messages?email=once@example.org`, {
            auth: client.auth,
          });
          const data = res.body.data as Array<{ id: string }> | undefined;
          return data && data.length > 0 ? data : undefined;
        },
        { timeoutMs: 30_000, what: 'the message listed' },
      );
      expect(listed.map((m) => m.id)).toEqual([id]);
    } finally {
      await triggers.stop();
    }
  }, 180_000);
});
