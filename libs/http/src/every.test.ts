import { every, RUN_AGAIN_NOW, type Repeating } from './every';

/** A promise the test settles by hand, standing for a run that takes as long as the test says. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('every', () => {
  let loop: Repeating | undefined;

  beforeEach(() => jest.useFakeTimers());
  afterEach(async () => {
    await loop?.stop();
    loop = undefined;
    jest.useRealTimers();
  });

  it('runs the task every interval, the first time one interval after the start', async () => {
    const task = jest.fn();
    loop = every(1_000, task, { onError: jest.fn() });

    await jest.advanceTimersByTimeAsync(999);
    expect(task).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(task).toHaveBeenCalledTimes(3);
  });

  it('when a first delay is given, the first run comes after it and the next ones every interval', async () => {
    const task = jest.fn();
    loop = every(1_000, task, { onError: jest.fn(), firstRunAfterMs: 0 });

    await jest.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('when a run is still going at the next tick, that tick is skipped rather than starting the task twice', async () => {
    const slow = gate();
    let concurrent = 0;
    let mostConcurrent = 0;
    const task = jest.fn(async () => {
      mostConcurrent = Math.max(mostConcurrent, ++concurrent);
      await slow.opened;
      concurrent--;
    });
    loop = every(1_000, task, { onError: jest.fn() });

    await jest.advanceTimersByTimeAsync(3_500);
    expect(task).toHaveBeenCalledTimes(1);
    slow.open();
    await jest.advanceTimersByTimeAsync(500);
    expect(task).toHaveBeenCalledTimes(2);
    expect(mostConcurrent).toBe(1);
  });

  it('at the rest-between-runs pace, the next run starts one interval after the previous one finished', async () => {
    const slow = gate();
    let runs = 0;
    const task = jest.fn(() => (++runs === 1 ? slow.opened : undefined));
    loop = every(1_000, task, { onError: jest.fn(), pace: 'rest-between-runs' });

    await jest.advanceTimersByTimeAsync(1_000);
    expect(task).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1_500);
    slow.open();
    await jest.advanceTimersByTimeAsync(999);
    expect(task).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('a run that resolves to RUN_AGAIN_NOW (a full batch) is followed at once, at either pace; the rest resumes after the last', async () => {
    for (const pace of ['rest-between-runs', 'fixed-rate'] as const) {
      let left = 3;
      const task = jest.fn(() => Promise.resolve(--left > 0 ? RUN_AGAIN_NOW : undefined));
      const repeating = every(1_000, task, { onError: jest.fn(), pace });

      await jest.advanceTimersByTimeAsync(1_010);
      expect(task).toHaveBeenCalledTimes(3);
      await jest.advanceTimersByTimeAsync(900);
      expect(task).toHaveBeenCalledTimes(3);
      await jest.advanceTimersByTimeAsync(200);
      expect(task).toHaveBeenCalledTimes(4);
      await repeating.stop();
    }
  });

  it('runSoon() runs at once, or right after the run under way; at rest between runs the rest restarts after it, in one chain', async () => {
    const slow = gate();
    let runs = 0;
    const task = jest.fn(() => (++runs === 2 ? slow.opened : undefined));
    loop = every(1_000, task, { onError: jest.fn(), pace: 'rest-between-runs' });

    await jest.advanceTimersByTimeAsync(400);
    loop.runSoon();
    await jest.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(1);
    // The rest starts again from that run's end: no run at 1,000 ms, the next at 1,400 ms.
    await jest.advanceTimersByTimeAsync(999);
    expect(task).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2); // the slow one
    loop.runSoon();
    loop.runSoon();
    await jest.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(2);
    slow.open();
    await jest.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(3); // once after it, however often it was asked for
    // One chain of rests from there: one run a second, not two.
    await jest.advanceTimersByTimeAsync(3_000);
    expect(task).toHaveBeenCalledTimes(6);
  });

  it('runSoon() after stop() does nothing', async () => {
    const task = jest.fn();
    const repeating = every(1_000, task, { onError: jest.fn() });
    await repeating.stop();
    repeating.runSoon();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(task).not.toHaveBeenCalled();
  });

  it('stop() also ends a loop that keeps finding more to do', async () => {
    let runs = 0;
    const task = jest.fn(() => {
      if (++runs === 5) void repeating.stop();
      return Promise.resolve(RUN_AGAIN_NOW);
    });
    const repeating = every(1_000, task, { onError: jest.fn(), pace: 'rest-between-runs' });
    await jest.advanceTimersByTimeAsync(5_000);
    expect(task).toHaveBeenCalledTimes(5);
  });

  it('stop() waits for the run under way to finish, and no run starts after it', async () => {
    const slow = gate();
    let finished = false;
    const task = jest.fn(async () => {
      await slow.opened;
      finished = true;
    });
    const running = every(1_000, task, { onError: jest.fn() });
    await jest.advanceTimersByTimeAsync(1_000);

    let stopped = false;
    const stopping = running.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    slow.open();
    await stopping;
    expect(finished).toBe(true);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('stop() before the first run means the task never runs', async () => {
    const task = jest.fn();
    await every(1_000, task, { onError: jest.fn() }).stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(task).not.toHaveBeenCalled();
  });

  it('when the task fails, the error goes to onError and the loop goes on', async () => {
    const onError = jest.fn();
    const rejected = new Error('database unreachable');
    const thrown = new Error('thrown before any await');
    const task = jest
      .fn<Promise<void> | void, []>()
      .mockImplementationOnce(() => Promise.reject(rejected))
      .mockImplementationOnce(() => {
        throw thrown;
      });
    loop = every(1_000, task, { onError, pace: 'rest-between-runs' });

    await jest.advanceTimersByTimeAsync(3_000);
    expect(onError.mock.calls).toEqual([[rejected], [thrown]]);
    expect(task).toHaveBeenCalledTimes(3);
  });
});
