import { every, type Repeating } from '@postbus/http/every';
import type { Logger } from '@postbus/logger';
import type { Probe } from './ports';
import type { StatusEngine } from './status-engine';

/**
 * Runs every probe on its own pace, one run of a probe at a time (the next is scheduled when the
 * last has finished), and hands each verdict to the engine. A probe that hangs past its timeout
 * reports nothing, and the engine shows its components as unknown once they are stale.
 */
export class Monitor {
  private loops: Repeating[] = [];
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
    this.loops = this.probes.map((probe) =>
      every(probe.intervalMs, () => this.runOnce(probe), {
        pace: 'rest-between-runs',
        firstRunAfterMs: 0,
        onError: (error) => this.logger.warn('probe failed', { probe: probe.name, error }),
      }),
    );
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
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await Promise.all(this.probes.map((p) => (p.close ? p.close().catch(() => undefined) : Promise.resolve())));
  }
}
