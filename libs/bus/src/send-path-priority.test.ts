import { SendPathPriority } from './send-path-priority';

/** A clock that moves only when waited on. */
function clock() {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    sleep: (ms: number) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
    advance: (ms: number) => void (now += ms),
    waited: () => waits.reduce((a, b) => a + b, 0),
  };
}

describe('SendPathPriority', () => {
  it('admits reports at once while nothing is being sent', async () => {
    const c = clock();
    const priority = new SendPathPriority({ whileSendingPerSecond: 50, now: c.now, sleep: c.sleep });
    for (let i = 0; i < 10; i++) await priority.admit(100);
    expect(c.waited()).toBe(0);
  });

  it('bounds them to the rate while triggers are delivered, and lets the rest through once sending stops', async () => {
    const c = clock();
    const priority = new SendPathPriority({ whileSendingPerSecond: 50, busyWindowMs: 1_000, now: c.now, sleep: c.sleep });
    let release!: () => void;
    const sending = priority.delivering(() => new Promise<void>((resolve) => (release = resolve)));
    await priority.admit(50); // the first run at once
    await priority.admit(50); // the next one a second later
    expect(c.waited()).toBe(1_000);
    await priority.admit(100);
    expect(c.waited()).toBe(2_000);
    release();
    await sending;
    // Still busy right after a run (the gap between two runs of a burst) …
    expect(priority.busy()).toBe(true);
    c.advance(1_000);
    // … then idle: what waited goes at once.
    expect(priority.busy()).toBe(false);
    const before = c.waited();
    await priority.admit(500);
    expect(c.waited()).toBe(before);
  });
});
