import { RunSizer } from './consumer';

describe('RunSizer', () => {
  it('starts at the first size, then sizes runs to the time budget from what runs took', () => {
    const sizer = new RunSizer(1_000, 1_000, 50);
    expect(sizer.size()).toBe(50);
    sizer.measured(50, 100); // 2 ms a message
    expect(sizer.size()).toBe(500);
  });

  it('shrinks within a few runs when messages get slow, and never below one or above the maximum', () => {
    const sizer = new RunSizer(1_000, 200, 50);
    sizer.measured(50, 5); // 0.1 ms a message: the maximum bounds it
    expect(sizer.size()).toBe(200);
    for (let i = 0; i < 8; i++) sizer.measured(10, 300); // 30 ms a message
    expect(sizer.size()).toBeGreaterThanOrEqual(33);
    expect(sizer.size()).toBeLessThanOrEqual(40);
    sizer.measured(1, 60_000); // one message took a minute
    expect(sizer.size()).toBe(1);
  });
});
