import { componentDefinitions } from '../src/domain/components';
import { StatusEngine, type EngineOptions } from '../src/domain/status-engine';

/** The status engine as the tests run it: the real components and damping, and what a test changes. */
export const testEngine = (overrides: Partial<EngineOptions> = {}): StatusEngine =>
  new StatusEngine({
    page: { id: 'postbus', name: 'Postbus', url: 'http://status.test' },
    definitions: componentDefinitions(),
    damping: { failuresToChange: 3, successesToRecover: 2 },
    staleAfterMs: () => 30_000,
    maintenanceVerifyMs: 60_000,
    ...overrides,
  });
