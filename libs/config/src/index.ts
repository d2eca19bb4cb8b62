import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import Ajv from 'ajv';

/** Raised when the environment does not satisfy a service's configuration schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Raised when NODE_ENV=production and a secret the service needs is unset. Its message is one line
 * naming the variables, because the random per-process stand-in used in development would let the
 * service start and then fail every send (or sign what no other instance can check).
 */
export class MissingSecretError extends Error {
  constructor(readonly names: string[]) {
    super(`${names.join(', ')} must be set when NODE_ENV=production`);
    this.name = 'MissingSecretError';
  }
}

/** Marks a setting (a secret that falls back to a random development value) as required in production. */
export const RequiredInProduction = 'requiredInProduction';

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });

/**
 * Reads the environment variables a schema names, applies defaults, coerces strings into the
 * declared types and returns a frozen, typed object. Every bad variable is reported at once. With
 * NODE_ENV=production, a setting marked RequiredInProduction that is empty is an error too.
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
  if (env['NODE_ENV'] === 'production') {
    const missing = Object.entries(schema.properties)
      .filter(([name, property]) => (property as Record<string, unknown>)[RequiredInProduction] === true && !raw[name])
      .map(([name]) => name);
    if (missing.length > 0) throw new MissingSecretError(missing);
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
  QUERY_AUDIT: Type.Union([Type.Literal('off'), Type.Literal('strict')], {
    default: 'off',
    description:
      'strict: a request whose query on a growing collection is not by exact _id fails (the tests set it, so a read that would scan the embedded store cannot slip in)',
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
    default: 1,
    description:
      'idempotent producers writing side by side (one request in flight each); a key always uses the same one. One gathers the most messages into each produce request, which costs the service and the broker less per message (the gateway bench: a median 0.51 x express with one, 0.45 x with four)',
  }),
  KAFKA_FETCH_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 5_000,
    default: 20,
    description:
      'how long the broker may hold a fetch of the consumers a mail waits for (mailer triggers, webhooks) to gather KAFKA_FETCH_MIN_BYTES: at a modest rate they get a few messages a fetch instead of one (a fetch costs the broker and the consumer about as much as the messages in it); while idle each of them fetches once per wait',
  }),
  KAFKA_FETCH_MIN_BYTES: Type.Integer({
    minimum: 1,
    default: 16_384,
    description: 'bytes a fetch waits for (up to KAFKA_FETCH_MAX_WAIT_MS) before the broker answers it',
  }),
  KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 5_000,
    default: 200,
    description:
      'the same for the consumers that see every mail but that no mail waits for (the users service registering recipients): a longer wait gathers more per fetch, which halves their CPU at a modest rate',
  }),
  KAFKA_BACKGROUND_FETCH_MIN_BYTES: Type.Integer({
    minimum: 1,
    default: 65_536,
    description: 'bytes such a fetch waits for (up to KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS)',
  }),
  KAFKA_IDLE_FETCH_MAX_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 5_000,
    default: 5_000,
    description:
      "how long the broker may hold a fetch of the other consumers (commands, projections, feedback), which answer as soon as there is a byte: while idle each asks once per wait, and a graceful stop waits for the fetch in flight, so up to this long (kafkajs's default)",
  }),
  PII_TOPIC_RETENTION: Type.String({
    default: 'P7D',
    // ISO 8601 duration of days, hours, minutes, seconds (a month or a year has no fixed length).
    pattern: '^P(?!$)(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$',
    description: 'ISO 8601 duration the topics carrying personal data (and their DLQs) keep messages (P7D: seven days)',
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

/** The settings every service shares, read from `env` with their defaults (e.g. for a tool that talks to the bus as the services do). */
export const loadCommonConfig = (env: Record<string, string | undefined>): Readonly<Static<TObject<typeof CommonConfig>>> =>
  loadConfig(Type.Object(CommonConfig), env);

/**
 * The internal HTTP API every backend service serves to the gateway: where it listens and the
 * secret its callers' tokens are signed with.
 */
/**
 * The key of the address hashes that outlive an erasure: the audit record's (the erasure service)
 * and the suppressions an erased address keeps (the mailer), so the same key on both.
 */
export const ErasureAuditConfig = {
  ERASURE_AUDIT_KEY: Type.String({
    default: '',
    [RequiredInProduction]: true,
    pattern: '^(.{32,})?$',
    description:
      "HMAC key (32+ characters) of the address hashes kept after an erasure: the audit record's, and the bounce and complaint suppressions of an erased address; empty: a random one per process (development only)",
  }),
};

export const InternalApiConfig = {
  INTERNAL_HOST: Type.String({
    default: '127.0.0.1',
    minLength: 1,
    description:
      'address the internal HTTP server (internal API, /metrics) listens on; 0.0.0.0 where other hosts must reach it (containers), behind a network policy',
  }),
  INTERNAL_API_SECRET: Type.String({
    default: '',
    pattern: '^(|.{32,})$',
    [RequiredInProduction]: true,
    description:
      'HS256 secret (32+ characters) shared by the gateway and every service: signs the short-lived tokens of internal API calls; empty: a random one per process (development only: calls between processes are then refused)',
  }),
} satisfies TProperties;

/**
 * The template engine of the services that render templates (the gateway's previews and saves,
 * the mailer's sends): how long a template may hold the event loop, and the worker threads that
 * render the heavier ones. Each service adds how long its callers wait for their client's turn.
 */
export const TemplateEngineConfig = {
  TEMPLATE_INLINE_MS: Type.Integer({
    minimum: 5,
    maximum: 1_000,
    default: 50,
    description:
      'how long a template compile and render may hold the event loop; a template that would take longer is rendered on a worker thread from then on',
  }),
  TEMPLATE_POOL_THREADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description:
      'worker threads rendering heavy templates (one kept ready, the others started when needed), below the event loop’s priority',
  }),
  TEMPLATE_POOL_TIME_MS: Type.Integer({
    minimum: 100,
    default: 1_000,
    description:
      'CPU time one template compile or render may use on a worker thread; past it the job is stopped, and the preview answered 422 or the message failed, naming the limit',
  }),
  TEMPLATE_POOL_MEMORY_MB: Type.Integer({
    minimum: 16,
    default: 128,
    description:
      'heap of a worker thread; a template needing more ends its thread (the pool starts another), and its preview is answered 422 or its message failed',
  }),
  TEMPLATE_POOL_PER_CLIENT: Type.Integer({
    minimum: 1,
    default: 1,
    description: "a client's template jobs on worker threads at once; its others wait in its own queue, behind each other",
  }),
} satisfies TProperties;
