import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, freePort, repoRoot } from '@postbus/testing';
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
  });
});
