import { componentDefinitions } from '../src/domain/components';
import type { ComponentStatus, StatusEvent } from '../src/domain/model';
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

/** An engine on a clock the test moves by hand. */
export function engineOnClock() {
  let now = new Date('2026-03-01T10:00:00Z');
  const clock = () => new Date(now);
  const engine = testEngine({ clock });
  const events: StatusEvent[] = [];
  engine.onEvent((e) => events.push(e));
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
    engine.tick();
  };
  const check = (componentId: string, status: ComponentStatus, times = 1) => {
    for (let i = 0; i < times; i++) {
      engine.record({ componentId, at: clock(), status, detail: status === 'operational' ? 'ready' : 'connection refused' });
      advance(1000);
    }
  };
  const component = (id: string) => engine.snapshot().components.find((c) => c.id === id)!;
  return { engine, events, advance, check, component, clock };
}
