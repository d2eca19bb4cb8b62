import { Kafka, logLevel, type LogEntry, type SASLOptions } from 'kafkajs';
import type { Logger } from '@postbus/logger';

/** Where the brokers are and how to authenticate to them. */
export interface KafkaConnection {
  brokers: string[];
  ssl?: boolean;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** The KAFKA_* settings every service's configuration has (see CommonConfig in @postbus/config). */
export interface KafkaSettings {
  KAFKA_BROKERS: string;
  KAFKA_SSL: boolean;
  KAFKA_SASL_MECHANISM: '' | 'plain' | 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
  KAFKA_NAMESPACE: string;
  KAFKA_TOPIC_PARTITIONS: number;
  KAFKA_REPLICATION_FACTOR: number;
  KAFKA_PRODUCER_LANES: number;
  KAFKA_FETCH_MAX_WAIT_MS: number;
  KAFKA_FETCH_MIN_BYTES: number;
  KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS: number;
  KAFKA_BACKGROUND_FETCH_MIN_BYTES: number;
  KAFKA_IDLE_FETCH_MAX_WAIT_MS: number;
  /** ISO 8601 duration: how long topics carrying personal data (and their DLQs) keep messages. */
  PII_TOPIC_RETENTION: string;
}

/** The connection from the KAFKA_* settings every service's config has (see CommonConfig). */
export function kafkaConnection(
  config: Pick<KafkaSettings, 'KAFKA_BROKERS' | 'KAFKA_SSL' | 'KAFKA_SASL_MECHANISM' | 'KAFKA_SASL_USERNAME' | 'KAFKA_SASL_PASSWORD'>,
): KafkaConnection {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  return {
    brokers: config.KAFKA_BROKERS.split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    ssl: config.KAFKA_SSL,
    ...(mechanism ? { sasl: { mechanism, username, password } } : {}),
  };
}

// Retriable broker answers (a coordinator still loading right after start, a leader moving) are
// logged by kafkajs as errors although it retries them: they are warnings here.
const RETRIABLE = /coordinator|not available|leader|rebalanc/i;
// Postbus bounds the idempotent producer's retries on purpose (a request waits at most
// KAFKA_ACK_TIMEOUT_MS, then answers 503 and nothing is reported as accepted).
const EXPECTED = /Limiting retries for the idempotent producer/;

// kafkajs logs through winston, one line per entry, at warn and above unless debugging.
export function createKafka({ brokers, ssl, sasl }: KafkaConnection, clientId: string, logger: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers,
    ssl,
    ...(sasl ? { sasl: sasl as SASLOptions } : {}),
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 3000 },
    logLevel: logger.level === 'debug' ? logLevel.INFO : logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, timestamp: _t, logger: _l, ...rest } = log;
        let mapped = LEVELS[level] ?? 'info';
        if (mapped === 'error' && RETRIABLE.test(String(rest['error'] ?? message))) mapped = 'warn';
        if (EXPECTED.test(message)) mapped = 'debug';
        logger.log(mapped, `kafkajs ${namespace}: ${message}`, rest);
      },
  });
}
