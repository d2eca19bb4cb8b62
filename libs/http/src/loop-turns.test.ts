import { LoopTurns } from './loop-turns';

/** Holds the loop for `ms` (the synchronous part of one chain's step). */
const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** 200 chains resumed in one microtask drain, each 1 ms of synchronous work; how many ran before a timer set beside them. */
async function chainsBeforeTimer(turns: LoopTurns | undefined): Promise<{ before: number; ran: number }> {
  let ran = 0;
  let before = -1;
  let start!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const chains = Array.from({ length: 200 }, async () => {
    await started;
    const step = () => {
      busy(1);
      ran++;
      return Promise.resolve();
    };
    await (turns ? turns.run(step) : step());
  });
  setTimeout(() => (before = ran), 0);
  start();
  await Promise.all(chains);
  await new Promise((resolve) => setTimeout(resolve, 5));
  return { before, ran };
}

describe('LoopTurns', () => {
  it('without turns, every chain of a drain runs before a timer due meanwhile', async () => {
    expect(await chainsBeforeTimer(undefined)).toEqual({ before: 200, ran: 200 });
  });

  it('with turns, a timer due meanwhile runs after about a budget of chains, and every chain still runs', async () => {
    const { before, ran } = await chainsBeforeTimer(new LoopTurns(10));
    expect(ran).toBe(200);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(60); // ~10 chains a turn; margin for a slow machine's timer
  });

  it('chains go on in the order they asked for a turn', async () => {
    const turns = new LoopTurns(2);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        turns.run(() => {
          busy(0.5);
          order.push(i);
          return Promise.resolve();
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });
});
