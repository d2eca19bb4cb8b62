import { Type } from '@sinclair/typebox';
import { CommonConfig, ErasureAuditConfig, InternalApiConfig } from '@postbus/config';
import { ERASURE_PARTICIPANTS } from '@postbus/contracts';

export const ErasureConfig = Type.Object({
  ...CommonConfig,
  ...InternalApiConfig,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8085, description: 'internal API port' }),
  ERASURE_DB_NAME: Type.String({
    default: 'postbus_erasure',
    pattern: '^[A-Za-z0-9_-]+$',
    description: "the erasure service's own database",
  }),
  ERASURE_DELAY: Type.String({
    default: 'P2D',
    // ISO 8601 duration: PnYnMnWnDTnHnMnS, at least one part.
    pattern: '^P(?!$)(\\d+Y)?(\\d+M)?(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+(\\.\\d+)?S)?)?$',
    description: 'ISO 8601 duration between an erase request and the erasure (P2D: two days; tests use PT3S)',
  }),
  ERASURE_SCHEDULE: Type.String({
    default: '*/10 * * * * *',
    minLength: 9,
    description: 'node-cron expression (with seconds) of the job that claims due erasures',
  }),
  ERASURE_CONFIRM_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 300_000,
    description: 'an erasure not confirmed by every service after this long is sent to them again',
  }),
  ERASURE_SWEEP_DELAY_MS: Type.Integer({
    minimum: 0,
    default: 600_000,
    description:
      'after an erasure completes, when it is sent to the services once more (for what in-flight work wrote after the first pass) and its identifiers are dropped',
  }),
  ERASURE_PARTICIPANTS: Type.String({
    default: ERASURE_PARTICIPANTS.join(','),
    pattern: '^[a-z-]+(,[a-z-]+)*$',
    description: 'the services that must confirm an erasure before it is complete (comma-separated)',
  }),
  ERASURE_USER_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'how long an erase by user_id waits for the user to be announced before it goes ahead with the user_id alone',
  }),
  ...ErasureAuditConfig,
});

export type ErasureConfig = typeof ErasureConfig.static;
