import type { ScheduledSends } from '../src/domain/scheduled-sends';

/** For tests that send nothing scheduled: a scheduled trigger fails, and a cancel finds no message. */
export const noScheduledSends = {
  accept: () => Promise.reject(new Error('this test sends nothing scheduled')),
  cancel: () => Promise.resolve('not-found'),
} as unknown as ScheduledSends;
