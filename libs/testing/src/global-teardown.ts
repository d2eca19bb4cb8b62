import { stopInfrastructure } from './infra';
import { cleanUpTestRuns, testRunToken } from './test-run';
import './global-setup';

/** Jest globalTeardown: removes this run's topics and databases, and stops the infrastructure only when this run started it. */
export default async function globalTeardown(): Promise<void> {
  await cleanUpTestRuns(testRunToken());
  const started = globalThis.postbusStartedInfrastructure ?? [];
  globalThis.postbusStartedInfrastructure = [];
  stopInfrastructure(started);
}
