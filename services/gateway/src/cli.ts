#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig } from '@postbus/config';
import { connectDb } from '@postbus/db';
import { GatewayConfig } from './config';
import { hashApiKey, KEY_SCOPES, newApiKey, newClientId, type KeyScope } from './domain/credentials';
import { ClientRepository } from './model/client.repository';

const USAGE = `Usage: postbus clients create --name NAME [--scope full|sdk] [--json]

Creates a client and its first API key, printed once (only a digest is stored).
Reads MONGO_URL and GATEWAY_DB_NAME like the gateway does.`;

/** Operator commands that talk to the gateway's own database. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scope: { type: 'string', default: 'full' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.join(' ') !== 'clients create') {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const name = values.name?.trim();
  if (!name) {
    console.error('error: --name is required\n');
    console.error(USAGE);
    return 2;
  }
  const scope = values.scope as KeyScope;
  if (!KEY_SCOPES.includes(scope)) {
    console.error(`error: --scope must be one of ${KEY_SCOPES.join(', ')}`);
    return 2;
  }
  const config = loadConfig(GatewayConfig);
  const db = await connectDb({ url: config.MONGO_URL, dbName: config.GATEWAY_DB_NAME, connectTimeoutMs: 10_000 });
  try {
    const clients = new ClientRepository(db);
    await clients.init();
    const clientId = newClientId();
    const apiKey = newApiKey(scope);
    const now = new Date();
    await clients.create({
      clientId,
      name,
      createdAt: now,
      keys: [{ keyId: apiKey.slice(0, 12), hash: hashApiKey(apiKey).toString('hex'), scope, createdAt: now, revokedAt: null }],
    });
    if (values.json) console.log(JSON.stringify({ client_id: clientId, api_key: apiKey, scope, name }));
    else
      console.log(`Client created: ${name}\n  client id: ${clientId}\n  api key:   ${apiKey}   (scope ${scope}; shown once, store it now)`);
    return 0;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
