#!/usr/bin/env node
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { Topics } from '@postbus/contracts';
import { AppError } from '@postbus/errors';
import { connectDb } from '@postbus/db';
import { createLogger } from '@postbus/logger';
import { parseCliArguments, USAGE, UsageError } from './cli-arguments';
import { GatewayConfig } from './config';
import { newClientId } from './domain/credentials';
import { announceOnBus, KeyAdmin, publicKey } from './domain/key-admin';
import { ApiKeyRepository } from './model/api-key.repository';
import { ClientRepository } from './model/client.repository';

/** Operator commands that talk to the gateway's own database (and announce revocations on the bus). */
async function main(argv: string[]): Promise<number> {
  try {
    // Arguments first: a usage error never touches the database.
    const request = parseCliArguments(argv);
    if ('help' in request) {
      console.log(USAGE);
      return request.asked ? 0 : 2;
    }

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
      if (request.command === 'clients create') {
        const { name, scope, json } = request;
        const id = newClientId();
        await clients.create({ clientId: id, name, createdAt: new Date() });
        const { key, apiKey } = await admin.create(id, 'default', scope);
        if (json) console.log(JSON.stringify({ client_id: id, key_id: key._id, api_key: apiKey, scope, name }));
        else
          console.log(
            `Client created: ${name}\n  client id: ${id}\n  key id:    ${key._id}\n  api key:   ${apiKey}   (scope ${scope}; shown once, store it now)`,
          );
        return 0;
      }
      const { clientId, json } = request;
      if (!(await clients.findByClientId(clientId))) {
        console.error(`error: no client ${clientId}`);
        return 1;
      }
      if (request.command === 'keys create') {
        const { key, apiKey } = await admin.create(clientId, request.name, request.scope);
        if (json) console.log(JSON.stringify({ ...publicKey(key), api_key: apiKey }));
        else
          console.log(
            `Key created: ${key.name}\n  key id:  ${key._id}\n  api key: ${apiKey}   (scope ${request.scope}; shown once, store it now)`,
          );
        return 0;
      }
      if (request.command === 'keys list') {
        const list = (await admin.list(clientId)).map(publicKey);
        if (json) console.log(JSON.stringify({ data: list }));
        else
          for (const k of list)
            console.log(
              `${k.id}  ${k.scope.padEnd(4)}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}  ${k.name}`,
            );
        return 0;
      }
      const revoked = await admin.revoke(clientId, request.keyId, { allowLastFull: request.force });
      if (!revoked) {
        console.error(`error: client ${clientId} has no key ${request.keyId}`);
        return 1;
      }
      if (json) console.log(JSON.stringify(publicKey(revoked)));
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
