import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import Ajv from 'ajv';

/** Raised when the environment does not satisfy a service's configuration schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });

/**
 * Reads the environment variables a schema names, applies defaults, coerces strings into the
 * declared types and returns a frozen, typed object. Every bad variable is reported at once.
 */
export function loadConfig<T extends TObject>(schema: T, env: Record<string, string | undefined> = process.env): Readonly<Static<T>> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const validate = ajv.compile(schema);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, '') || String(e.params['missingProperty'] ?? '');
      const description = (schema.properties[name] as { description?: string } | undefined)?.description;
      return `${name}: ${e.message ?? 'is invalid'}${description ? ` (${description})` : ''}`;
    });
    throw new ConfigError(problems);
  }
  return Object.freeze(raw as Static<T>);
}

/** Settings every service shares: the bus, its database and its logs. */
export const CommonConfig = {
  LOG_LEVEL: Type.Union([Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug')], {
    default: 'info',
    description: 'winston log level',
  }),
  STOP_WITH_PARENT: Type.Boolean({
    default: false,
    description: 'stop gracefully once the process that started this one is gone (npm start and the tests set it)',
  }),
  KAFKA_BROKERS: Type.String({
    default: '127.0.0.1:9092',
    pattern: '^[^,\\s]+:\\d+(,[^,\\s]+:\\d+)*$',
    description: 'comma-separated host:port list of Kafka brokers',
  }),
  KAFKA_TOPIC_PARTITIONS: Type.Integer({ minimum: 1, default: 6, description: 'partitions of topics the service creates' }),
  KAFKA_REPLICATION_FACTOR: Type.Integer({ minimum: 1, default: 1, description: 'replication factor of topics the service creates' }),
  KAFKA_PRODUCER_LANES: Type.Integer({
    minimum: 1,
    maximum: 16,
    default: 4,
    description: 'idempotent producers writing side by side (one request in flight each); a key always uses the same one',
  }),
  KAFKA_SSL: Type.Boolean({ default: false, description: 'connect to the brokers over TLS (managed Kafka)' }),
  KAFKA_SASL_MECHANISM: Type.Union(
    [Type.Literal(''), Type.Literal('plain'), Type.Literal('scram-sha-256'), Type.Literal('scram-sha-512')],
    {
      default: '',
      description: 'SASL mechanism for managed Kafka; empty for none',
    },
  ),
  KAFKA_SASL_USERNAME: Type.String({ default: '', description: 'SASL user name' }),
  KAFKA_SASL_PASSWORD: Type.String({ default: '', description: 'SASL password' }),
  KAFKA_NAMESPACE: Type.String({
    default: '',
    pattern: '^[a-z0-9-]*$',
    description: 'suffix for topic and consumer group names, so test runs do not share them',
  }),
  MONGO_URL: Type.String({
    default: 'mongodb://127.0.0.1:27017',
    pattern: '^mongodb(\\+srv)?://',
    description: 'MongoDB connection string (the database name is per service)',
  }),
} satisfies TProperties;
