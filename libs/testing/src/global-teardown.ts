import { releaseInfrastructure } from './infra';

/** Jest globalTeardown: stops the infrastructure only when the test run started it. */
export default function globalTeardown(): void {
  releaseInfrastructure();
}
