import { stopInfrastructure } from './infra';
import './global-setup';

/** Jest globalTeardown: stops the infrastructure only when this test run started it. */
export default function globalTeardown(): void {
  const started = globalThis.postbusStartedInfrastructure ?? [];
  globalThis.postbusStartedInfrastructure = [];
  stopInfrastructure(started);
}
