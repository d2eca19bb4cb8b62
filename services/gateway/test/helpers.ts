import { randomBytes } from 'node:crypto';
import { loadConfig } from '@postbus/config';
import { connectDb } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { basicAuth, call, startDnsServer, testInternalApiSecret, uniqueName, type LocalDnsServer } from '@postbus/testing';
import { start, type Gateway } from '../src/app';
import { GatewayConfig } from '../src/config';
import { newClientId, type KeyScope } from '../src/domain/credentials';
import { KeyAdmin } from '../src/domain/key-admin';
import { ApiKeyRepository } from '../src/model/api-key.repository';
import { ClientRepository } from '../src/model/client.repository';

export interface TestGateway {
  gateway: Gateway;
  url: string;
  /** The internal listener (/metrics). */
  internalUrl: string;
  dbName: string;
  namespace: string;
  config: GatewayConfig;
  stop(): Promise<void>;
}

/** Starts a gateway in-process on a free port, with its own database and topic namespace. */
export async function startTestGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const dbName = uniqueName('gw').replace(/-/g, '_');
  const namespace = uniqueName('t');
  const config = loadConfig(GatewayConfig, {
    ...process.env,
    PORT: '0',
    INTERNAL_PORT: '0',
    INTERNAL_API_SECRET: testInternalApiSecret,
    GATEWAY_DB_NAME: dbName,
    KAFKA_NAMESPACE: namespace,
    KAFKA_TOPIC_PARTITIONS: '3',
    LOG_LEVEL: 'error',
    ...env,
  });
  const gateway = await start({ config, logger: createLogger({ service: 'gateway-test', level: 'error' }) });
  return {
    gateway,
    url: `http://127.0.0.1:${gateway.port}`,
    internalUrl: `http://127.0.0.1:${gateway.internalPort}`,
    dbName,
    namespace,
    config,
    stop: () => gateway.stop(),
  };
}

export interface TestClient {
  clientId: string;
  keyId: string;
  apiKey: string;
  auth: string;
}

/** Creates a client with one key straight in the gateway's database, as the operator CLI does. */
export async function createTestClient(config: GatewayConfig, scope: KeyScope = 'full'): Promise<TestClient> {
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.GATEWAY_DB_NAME });
  try {
    const clientId = newClientId();
    await new ClientRepository(db).create({ clientId, name: 'test', createdAt: new Date() });
    const { key, apiKey } = await new KeyAdmin(new ApiKeyRepository(db), () => Promise.resolve()).create(clientId, 'default', scope);
    return { clientId, keyId: key._id, apiKey, auth: basicAuth(clientId, apiKey) };
  } finally {
    await db.close();
  }
}

/** A gateway, its first client and what else a test file started with it. */
export interface StartedGateway {
  gw: TestGateway;
  acme: TestClient;
}

/**
 * For the tests of one file: before them, starts a DNS server of its own and a gateway resolving
 * through it (sender domains' SPF include spf.postbus.test, a secrets key of its own) with a client,
 * and hands them to `use`; after them, stops both.
 */
export function withDnsGateway(use: (started: StartedGateway & { dns: LocalDnsServer }) => void): void {
  let dns: LocalDnsServer | undefined;
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    dns = await startDnsServer();
    gw = await startTestGateway({
      DNS_SERVERS: dns.address,
      SPF_INCLUDE: 'spf.postbus.test',
      SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    use({ dns, gw, acme: await createTestClient(gw.config) });
  });
  afterAll(async () => {
    await gw?.stop();
    await dns?.close();
  });
}

/**
 * For the tests of one file: before them, starts a gateway with a client and the client's project
 * "Shop" (created through the API) and hands them to `use`; after them, stops the gateway.
 */
export function withGatewayAndProject(use: (started: StartedGateway & { projectId: string }) => void): void {
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    gw = await startTestGateway();
    const acme = await createTestClient(gw.config);
    const created = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } });
    expect(created.status).toBe(201);
    use({ gw, acme, projectId: (created.body as { id: string }).id });
  });
  afterAll(async () => {
    await gw?.stop();
  });
}
