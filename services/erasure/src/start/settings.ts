import { randomBytes } from 'node:crypto';
import { end, parse } from 'iso8601-duration';
import cron from 'node-cron';
import type { Logger } from '@postbus/logger';
import type { ErasureConfig } from '../config';

/** What the later steps read from the configuration, once it is checked. */
export interface Settings {
  /** The services that must confirm an erasure. */
  participants: string[];
  /** HMAC key of the email hash kept in the audit record. */
  auditKey: string;
  /** When an erase accepted at that time runs (ERASURE_DELAY later). */
  eraseAtFrom: (acceptedAt: Date) => Date;
}

/** Checks what the configuration's schema cannot before anything is connected: a bad schedule or delay stops the start at once. */
export function readSettings(config: ErasureConfig, logger: Logger): Settings {
  if (!cron.validate(config.ERASURE_SCHEDULE)) throw new Error(`ERASURE_SCHEDULE: "${config.ERASURE_SCHEDULE}" is not a cron expression`);
  const delay = parse(config.ERASURE_DELAY);
  if (!config.ERASURE_AUDIT_KEY)
    logger.warn('ERASURE_AUDIT_KEY is not set: audit email hashes use a random key that ends with this process');
  return {
    participants: config.ERASURE_PARTICIPANTS.split(','),
    auditKey: config.ERASURE_AUDIT_KEY || randomBytes(32).toString('hex'),
    eraseAtFrom: (acceptedAt) => end(delay, acceptedAt),
  };
}
