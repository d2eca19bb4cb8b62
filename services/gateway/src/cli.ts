#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { Topics } from '@postbus/contracts';
import { AppError } from '@postbus/errors';
import { connectDb } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { GatewayConfig } from './config';
import { KEY_SCOPES, newClientId, type KeyScope } from './domain/credentials';
import { announceOnBus, KeyAdmin, publicKey } from './domain/key-admin';
import { ApiKeyRepository } from './model/api-key.repository';
import { ClientRepository } from './model/client.repository';

const USAGE = `Usage:
  postbus clients create --name NAME [--scope full|sdk|test] [--json]
      Creates a client and its first API key.
  postbus keys create --client CLIENT_ID --name NAME [--scope full|sdk|test] [--json]
      Creates another key for a client.
  postbus keys list --client CLIENT_ID [--json]
      Lists a client's keys (never their secrets).
  postbus keys revoke --client CLIENT_ID KEY_ID [--force] [--json]
      Revokes a key: every running gateway refuses it, and the sessions it opened, within a second.
      The client's last full key is kept unless --force.

  postbus status …
      The status service's incidents and maintenances (postbus status --help).

A key's secret is printed once, at creation (only a digest is stored).
Reads MONGO_URL, GATEWAY_DB_NAME and the KAFKA_* settings like the gateway does.`;

class UsageError extends Error {}

/** Operator commands that talk to the gateway's own database (and announce revocations on the bus). */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      client: { type: 'string' },
      scope: { type: 'string', default: 'full' },
      force: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [noun, verb, ...rest] = positionals;
  const command = `${noun ?? ''} ${verb ?? ''}`;
  const known = ['clients create', 'keys create', 'keys list', 'keys revoke'];
  if (values.help || !known.includes(command)) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const required = (value: string | undefined, option: string): string => {
    const trimmed = value?.trim();
    if (!trimmed) throw new UsageError(`${option} is required`);
    return trimmed;
  };
  const scopeOf = (value: string): KeyScope => {
    if (!KEY_SCOPES.includes(value as KeyScope)) throw new UsageError(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
    return value as KeyScope;
  };

  try {
    // Arguments first: a usage error never touches the database.
    const scope = scopeOf(values.scope);
    const name = command.endsWith('create') ? required(values.name, '--name') : '';
    const clientId = noun === 'keys' ? required(values.client, '--client') : '';
    const keyId = verb === 'revoke' ? required(rest[0], 'KEY_ID') : '';

    const config = loadConfig(GatewayConfig);
    const db = await connectDb({ url: config.MONGO_URL, dbName: config.GATEWAY_DB_NAME, connectTimeoutMs: 10_000 });
    let bus: Bus | undefined;
    try {
      const clients = new ClientRepository(db);
      const keys = new ApiKeyRepository(db);
      await clients.init();
      await keys.init();
      const admin = new KeyAdmin(keys, async (revoked) => {
        // Running gateways evict the key at once; without the bus they still refuse it within a second.
        bus = new Bus({ ...busOptions(config), service: 'postbus/cli', logger: createLogger({ service: 'postbus-cli', level: 'error' }) });
        await bus.ensureTopics([{ topic: Topics.Auth, compacted: true }]);
        await bus.publisher.connect();
        await announceOnBus(bus.publisher)(revoked);
      });
      if (command === 'clients create') {
        const id = newClientId();
        await clients.create({ clientId: id, name, createdAt: new Date() });
        const { key, apiKey } = await admin.create(id, 'default', scope);
        if (values.json) console.log(JSON.stringify({ client_id: id, key_id: key._id, api_key: apiKey, scope, name }));
        else
          console.log(
            `Client created: ${name}\n  client id: ${id}\n  key id:    ${key._id}\n  api key:   ${apiKey}   (scope ${scope}; shown once, store it now)`,
          );
        return 0;
      }
      if (!(await clients.findByClientId(clientId))) {
        console.error(`error: no client ${clientId}`);
        return 1;
      }
      if (command === 'keys create') {
        const { key, apiKey } = await admin.create(clientId, name, scope);
        if (values.json) console.log(JSON.stringify({ ...publicKey(key), api_key: apiKey }));
        else
          console.log(`Key created: ${key.name}\n  key id:  ${key._id}\n  api key: ${apiKey}   (scope ${scope}; shown once, store it now)`);
        return 0;
      }
      if (command === 'keys list') {
        const list = (await admin.list(clientId)).map(publicKey);
        if (values.json) console.log(JSON.stringify({ data: list }));
        else
          for (const k of list)
            console.log(
              `${k.id}  ${k.scope.padEnd(4)}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}  ${k.name}`,
            );
        return 0;
      }
      const revoked = await admin.revoke(clientId, keyId, { allowLastFull: values.force });
      if (!revoked) {
        console.error(`error: client ${clientId} has no key ${keyId}`);
        return 1;
      }
      if (values.json) console.log(JSON.stringify(publicKey(revoked)));
      else console.log(`Key revoked: ${revoked._id} (${revoked.name}) at ${revoked.revokedAt?.toISOString() ?? ''}`);
      return 0;
    } finally {
      await bus?.close();
      await db.close();
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}\n`);
      console.error(USAGE);
      return 2;
    }
    if (error instanceof AppError) {
      console.error(`error: ${error.message}${error.slug === 'last-full-key' ? ' (or pass --force)' : ''}`);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
