import { ensureInfrastructure, type LocalComponent } from './infra';
import { cleanUpTestRuns, testRunToken } from './test-run';

declare global {
  // Set by globalSetup, read by globalTeardown: jest runs both in its parent process.
  var postbusStartedInfrastructure: LocalComponent[] | undefined;
}

/** Jest globalSetup of the integration and e2e projects (each project runs it; the first may start). */
export default async function globalSetup(): Promise<void> {
  const started = await ensureInfrastructure();
  globalThis.postbusStartedInfrastructure = [...(globalThis.postbusStartedInfrastructure ?? []), ...started];
  // The token is made here, in jest's own process, before the workers start: they inherit it.
  testRunToken();
  await cleanUpTestRuns();
}
