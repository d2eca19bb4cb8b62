import type { Teardown } from '@postbus/http';
import type { StatusEngine } from '../domain/status-engine';

const TICK_MS = 500;

/** Moves what depends on time alone (stale components, maintenance windows, the daily records), twice a second. */
export function startBackgroundWork(engine: StatusEngine, teardown: Teardown): void {
  const ticker = setInterval(() => engine.tick(), TICK_MS);
  teardown.add(() => clearInterval(ticker));
}
