/**
 * A render that did not happen in the time its caller could give it: its tenant's earlier heavy
 * templates held the tenant's share of the worker threads (or a busy machine slowed them). Not the
 * template's fault: the caller tries again later (a message is deferred, a preview answered 429).
 */
export class TenantBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TenantBusyError';
  }
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

interface Lane {
  running: number;
  waiting: Waiter[];
}

/**
 * At most `perTenant` jobs of one tenant at once; the others wait in the tenant's own queue, in
 * order, and give up (TenantBusyError) after `maxWaitMs`. One tenant's heavy work then queues
 * behind itself: everyone else's reaches the pool with at most `perTenant` jobs of each other
 * tenant ahead of it.
 */
export class TenantLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly perTenant: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Runs `job` in `tenant`'s lane, waiting for its turn at most `maxWaitMs` (the lanes' own bound by default; 0: refused at once when the lane is full). */
  async run<T>(tenant: string, job: () => Promise<T>, maxWaitMs = this.maxWaitMs): Promise<T> {
    await this.turn(tenant, maxWaitMs);
    try {
      return await job();
    } finally {
      this.release(tenant);
    }
  }

  /** Jobs of `tenant` running or waiting. */
  load(tenant: string): number {
    const lane = this.lanes.get(tenant);
    return lane ? lane.running + lane.waiting.length : 0;
  }

  private turn(tenant: string, maxWaitMs: number): Promise<void> {
    let lane = this.lanes.get(tenant);
    if (!lane) this.lanes.set(tenant, (lane = { running: 0, waiting: [] }));
    if (lane.running < this.perTenant) {
      lane.running++;
      return Promise.resolve();
    }
    if (maxWaitMs <= 0) {
      this.forgetIfIdle(tenant);
      return Promise.reject(new TenantBusyError("the client's heavy templates are using its share of the render threads"));
    }
    const queue = lane.waiting;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          this.forgetIfIdle(tenant);
          reject(new TenantBusyError(`the client's heavy templates kept the render threads busy for more than ${maxWaitMs} ms`));
        }, maxWaitMs),
      };
      queue.push(waiter);
    });
  }

  private release(tenant: string): void {
    const lane = this.lanes.get(tenant);
    if (!lane) return;
    const next = lane.waiting.shift();
    if (next) return next.start(); // the slot passes on: running stays the same
    lane.running--;
    this.forgetIfIdle(tenant);
  }

  private forgetIfIdle(tenant: string): void {
    const lane = this.lanes.get(tenant);
    if (lane && lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(tenant);
  }
}
