import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '@postbus/logger';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

// kafkajs logs through winston, one line per entry, at warn and above unless debugging.
export function createKafka(brokers: string[], clientId: string, logger: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 3000 },
    logLevel: logger.level === 'debug' ? logLevel.INFO : logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log }: LogEntry) => {
        const { message, timestamp: _t, logger: _l, ...rest } = log;
        logger.log(LEVELS[level] ?? 'info', `kafkajs ${namespace}: ${message}`, rest);
      },
  });
}
