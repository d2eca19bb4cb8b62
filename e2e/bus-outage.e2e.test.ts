import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, freePort, repoRoot, waitFor } from '@postbus/testing';
import { createClientAndProject, startSystem, type RunningSystem } from './system';

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
});
