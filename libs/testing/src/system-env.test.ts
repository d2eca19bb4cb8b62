import { join } from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { loadConfig } from '@postbus/config';
import { loadServiceSchemas } from '../../../deploy/test/config-drift';
import { LOCAL_WEBHOOK_ALLOWED_HOSTS } from './local-settings';
import { databaseName, systemEnv } from './system-env';

const ports = { gateway: 20001, users: 20002, mailer: 20003, 'webhook-dispatcher': 20004, payments: 20005, erasure: 20006 };

describe('systemEnv', () => {
  it('gives a throw-away system its namespace, a database each and the addresses of its services', () => {
    const env = systemEnv({ namespace: 'e2e-ab12', ports, smtpUrl: 'smtp://127.0.0.1:2525', dnsServers: '127.0.0.1:5353' });
    expect(env).toMatchObject({
      KAFKA_NAMESPACE: 'e2e-ab12',
      GATEWAY_DB_NAME: 'e2e_ab12_gateway',
      WEBHOOKS_DB_NAME: 'e2e_ab12_webhooks',
      ERASURE_DB_NAME: 'e2e_ab12_erasure',
      USERS_URL: 'http://127.0.0.1:20002',
      WEBHOOKS_URL: 'http://127.0.0.1:20004',
      GATEWAY_URL: 'http://127.0.0.1:20001',
      PUBLIC_BASE_URL: 'http://127.0.0.1:20001',
      INTERNAL_PORT: '0',
      SMTP_URL: 'smtp://127.0.0.1:2525',
      DNS_SERVERS: '127.0.0.1:5353',
      SPF_INCLUDE: 'spf.postbus.test',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      ERASURE_SCHEDULE: '* * * * * *',
    });
    expect(databaseName('e2e-ab12', 'webhook-dispatcher')).toBe(env['WEBHOOKS_DB_NAME']);
    const secrets = ['SECRETS_KEY', 'TRACKING_SECRET', 'SESSION_SECRET', 'INTERNAL_API_SECRET', 'ERASURE_AUDIT_KEY'].map(
      (name) => env[name],
    );
    expect(new Set(secrets).size).toBe(5);
    expect(systemEnv({ namespace: 'e2e-ab12', ports })['SECRETS_KEY']).not.toBe(env['SECRETS_KEY']);
  });

  it('names only the services the system runs', () => {
    const env = systemEnv({ namespace: 'wbench-1', ports: { 'webhook-dispatcher': 20004 }, secrets: { INTERNAL_API_SECRET: 'shared' } });
    expect(Object.keys(env).sort()).toEqual(
      [
        'INTERNAL_API_SECRET',
        'KAFKA_NAMESPACE',
        'SECRETS_KEY',
        'SESSION_SECRET',
        'TRACKING_SECRET',
        'WEBHOOKS_DB_NAME',
        'WEBHOOKS_URL',
        'WEBHOOK_ALLOWED_HOSTS',
      ].sort(),
    );
    expect(env['INTERNAL_API_SECRET']).toBe('shared');
  });

  it('lets overrides, then what the environment sets, win', () => {
    const env = systemEnv({
      ports: { gateway: 8080, users: 8081, 'webhook-dispatcher': 8083, status: 8090 },
      publicHost: 'localhost',
      internalPort: 8086,
      dnsServers: '',
      secrets: { SECRETS_KEY: 'kept' },
      overrides: { LOG_LEVEL: 'warn', USERS_URL: 'http://127.0.0.1:9' },
      given: { USERS_URL: 'http://users.internal', DNS_SERVERS: '', SECRETS_KEY: 'from-env', UNRELATED: 'x' },
    });
    expect(env).toMatchObject({
      PUBLIC_BASE_URL: 'http://localhost:8080',
      GATEWAY_URL: 'http://127.0.0.1:8080',
      INTERNAL_PORT: '8086',
      WEBHOOK_ALLOWED_HOSTS: LOCAL_WEBHOOK_ALLOWED_HOSTS,
      LOG_LEVEL: 'warn',
      USERS_URL: 'http://users.internal',
      DNS_SERVERS: '',
      SECRETS_KEY: 'from-env',
    });
    expect(env).not.toHaveProperty('KAFKA_NAMESPACE');
    expect(env).not.toHaveProperty('USERS_DB_NAME');
    expect(env).not.toHaveProperty('ERASURE_SCHEDULE');
    expect(env).not.toHaveProperty('UNRELATED');
  });

  describe("against the services' configuration", () => {
    let schemas: Map<string, TObject>;
    beforeAll(async () => {
      schemas = await loadServiceSchemas(join(__dirname, '..', '..', '..'));
    });

    it('sets only variables some service reads, and every service accepts it', () => {
      const env = systemEnv({
        namespace: 'e2e-ab12',
        ports: { ...ports, status: 20007 },
        smtpUrl: 'smtp://127.0.0.1:2525',
        dnsServers: '127.0.0.1:5353',
      });
      const read = new Set([...schemas.values()].flatMap((schema) => Object.keys(schema.properties)));
      expect(Object.keys(env).filter((name) => !read.has(name))).toEqual([]);
      const refused = [...schemas].flatMap(([service, schema]) => {
        try {
          loadConfig(schema, env);
          return [];
        } catch (error) {
          return [`${service}: ${(error as Error).message}`];
        }
      });
      expect(refused).toEqual([]);
    });
  });
});
