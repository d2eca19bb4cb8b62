import { stopInfrastructure } from './infra';
import { cleanUpTestRuns, testRunToken } from './test-run';
import './global-setup';

/** Jest globalTeardown: removes this run's topics and databases, and stops the infrastructure only when this run started it. */
export default async function globalTeardown(): Promise<void> {
  // The end-to-end system the files of an in-band run shared (scripts/test-environment.cjs keeps it
  // in this process): stopped before its topics and databases go. Workers stop theirs as they exit.
  const shared = (globalThis as Record<symbol, { stop(): Promise<void> } | undefined>)[Symbol.for('postbus.e2e.sharedSystem')];
  await shared?.stop();
  await cleanUpTestRuns(testRunToken());
  const started = globalThis.postbusStartedInfrastructure ?? [];
  globalThis.postbusStartedInfrastructure = [];
  stopInfrastructure(started);
}
