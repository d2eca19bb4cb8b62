import { ensureInfrastructure } from './infra';

/** Jest globalSetup of the integration and e2e projects. */
export default async function globalSetup(): Promise<void> {
  await ensureInfrastructure();
}
