import type { Logger } from '@postbus/logger';
import type { Probe } from '../probes/probe';
import type { StatusEngine } from './engine';

/**
 * Runs every probe on its own pace, one run of a probe at a time (the next is scheduled when the
 * last has finished), and hands each verdict to the engine. A probe that hangs past its timeout
 * reports nothing, and the engine shows its components as unknown once they are stale.
 */
export class Monitor {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly engine: StatusEngine,
    private readonly probes: Probe[],
    private readonly logger: Logger,
    private readonly hangAfterMs: number,
    /** The engine's clock: verdicts are stamped with it, so an injected clock sees consistent times. */
    private readonly clock: () => Date = () => new Date(),
  ) {}

  start(): void {
    for (const probe of this.probes) this.schedule(probe, 0);
  }

  private schedule(probe: Probe, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.runOnce(probe).finally(() => {
        this.running.delete(run);
        this.schedule(probe, probe.intervalMs);
      });
      this.running.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async runOnce(probe: Probe): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), this.hangAfterMs);
    });
    try {
      const outcomes = await Promise.race([probe.run(), hang]);
      if (outcomes === 'hung') {
        this.logger.warn('probe hung, its components will go stale', { probe: probe.name });
        return;
      }
      if (this.stopped) return;
      for (const outcome of outcomes) {
        if ('unknown' in outcome) this.engine.markUnknown(outcome.componentId, outcome.unknown);
        else this.engine.record({ ...outcome, at: this.clock() });
      }
    } catch (error) {
      this.logger.warn('probe failed', { probe: probe.name, error });
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.running].map((r) => r.catch(() => undefined)));
    await Promise.all(this.probes.map((p) => (p.close ? p.close().catch(() => undefined) : Promise.resolve())));
  }
}
