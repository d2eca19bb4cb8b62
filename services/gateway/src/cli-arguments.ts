import { parseArgs } from 'node:util';
import { KEY_SCOPES, type KeyScope } from './domain/credentials';

/**
 * The scopes a client's first key may have. A client whose only key has scope `test` could do
 * nothing at all: a test key creates no project (so it has nowhere to send) and no other key.
 * Test keys are made for a client that exists, with its full key (POST /v1/keys) or `keys create`.
 */
export const FIRST_KEY_SCOPES: readonly KeyScope[] = ['full', 'sdk'];

export const USAGE = `Usage:
  postbus clients create --name NAME [--scope ${FIRST_KEY_SCOPES.join('|')}] [--json]
      Creates a client and its first API key (a test key is made afterwards: keys create --scope test).
  postbus keys create --client CLIENT_ID --name NAME [--scope ${KEY_SCOPES.join('|')}] [--json]
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

export class UsageError extends Error {}

export type CliCommand =
  | { command: 'clients create'; name: string; scope: KeyScope; json: boolean }
  | { command: 'keys create'; clientId: string; name: string; scope: KeyScope; json: boolean }
  | { command: 'keys list'; clientId: string; json: boolean }
  | { command: 'keys revoke'; clientId: string; keyId: string; force: boolean; json: boolean };

/** What the command line asks for: `help` (asked for, or no known command), or a command with its checked arguments. */
export type CliRequest = { help: true; asked: boolean } | CliCommand;

const OPTIONS = {
  name: { type: 'string' },
  client: { type: 'string' },
  scope: { type: 'string', default: 'full' },
  force: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The command line split by node's parser, whose refusals (an unknown option, a missing value) are usage errors. */
function parsed(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The operator CLI's arguments, checked before anything touches the database; a bad one is a UsageError. */
export function parseCliArguments(argv: string[]): CliRequest {
  const { values, positionals } = parsed(argv);
  const [noun, verb, ...rest] = positionals;
  const command = `${noun ?? ''} ${verb ?? ''}`;
  const required = (value: string | undefined, option: string): string => {
    const trimmed = value?.trim();
    if (!trimmed) throw new UsageError(`${option} is required`);
    return trimmed;
  };
  const scopeOf = (value: string, allowed: readonly KeyScope[]): KeyScope => {
    if (!allowed.includes(value as KeyScope)) throw new UsageError(`--scope must be one of ${allowed.join(', ')}`);
    return value as KeyScope;
  };
  const { json } = values;
  if (values.help) return { help: true, asked: true };
  switch (command) {
    case 'clients create': {
      if (values.scope === 'test') {
        throw new UsageError(
          `a client's first key must have scope ${FIRST_KEY_SCOPES.join(' or ')}: a client whose only key has scope test could ` +
            'create no project and no other key. Create the client, then its test key with ' +
            '`postbus keys create --client CLIENT_ID --name NAME --scope test` (or POST /v1/keys {"name", "scope": "test"} with its full key).',
        );
      }
      return { command, name: required(values.name, '--name'), scope: scopeOf(values.scope, FIRST_KEY_SCOPES), json };
    }
    case 'keys create':
      return {
        command,
        clientId: required(values.client, '--client'),
        name: required(values.name, '--name'),
        scope: scopeOf(values.scope, KEY_SCOPES),
        json,
      };
    case 'keys list':
      return { command, clientId: required(values.client, '--client'), json };
    case 'keys revoke':
      return { command, clientId: required(values.client, '--client'), keyId: required(rest[0], 'KEY_ID'), force: values.force, json };
    default:
      return { help: true, asked: false };
  }
}
