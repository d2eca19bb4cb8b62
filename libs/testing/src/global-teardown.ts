import { stopInfrastructure } from './infra';
import './global-setup';

/** Jest globalTeardown: stops the infrastructure only when this test run started it. */
export default function globalTeardown(): void {
  if (!globalThis.postbusStartedInfrastructure) return;
  globalThis.postbusStartedInfrastructure = false;
  stopInfrastructure();
}
