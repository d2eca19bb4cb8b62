import type { EmailTriggerCommand } from '@postbus/contracts';
import { BulkLane } from './bulk-lane';
import { SendPathPriority } from '@postbus/bus';

const trigger = (acceptedAt: string) => ({ acceptedAt }) as EmailTriggerCommand;

describe('BulkLane', () => {
  it('admits a run of batch messages at once while no single send is delivered and the single lane has passed them', async () => {
    const asked: Date[] = [];
    const lane = new BulkLane({
      singles: new SendPathPriority({ whileSendingPerSecond: 10 }),
      singlesPassed: (time) => {
        asked.push(time);
        return Promise.resolve(true);
      },
      sleep: () => Promise.reject(new Error('waited')),
    });
    await lane.admit([trigger('2026-12-02T10:00:00.000Z'), trigger('2026-12-02T10:00:02.000Z'), trigger('2026-12-02T10:00:01.000Z')]);
    // The newest message's acceptance is what the single lane must have passed.
    expect(asked).toEqual([new Date('2026-12-02T10:00:02.000Z')]);
  });

  it('waits until the single lane has handled what was published before the newest message (an erasure, a suppression)', async () => {
    let checks = 0;
    const slept: number[] = [];
    const lane = new BulkLane({
      singles: new SendPathPriority({ whileSendingPerSecond: 10 }),
      singlesPassed: () => Promise.resolve(++checks >= 3),
      pollMs: 100,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    await lane.admit([trigger('2026-12-02T10:00:00.000Z')]);
    expect(checks).toBe(3);
    expect(slept).toEqual([100, 100]);
  });

  it('goes at the bounded rate while single sends are being delivered', async () => {
    let now = 0;
    const waited: number[] = [];
    const singles = new SendPathPriority({
      whileSendingPerSecond: 50,
      now: () => now,
      sleep: (ms) => {
        waited.push(ms);
        now += ms;
        return Promise.resolve();
      },
    });
    const lane = new BulkLane({ singles, singlesPassed: () => Promise.resolve(true) });
    let release!: () => void;
    const sending = singles.delivering(() => new Promise<void>((resolve) => (release = resolve)));
    const run = Array.from({ length: 50 }, () => trigger('2026-12-02T10:00:00.000Z'));
    await lane.admit(run); // the first run at once
    await lane.admit(run); // the next a second later: 50 a second
    expect(waited.reduce((a, b) => a + b, 0)).toBe(1_000);
    release();
    await sending;
  });

  it('refuses a run still waiting for the single lane once closed (the mailer stopping), so that the consumer can stop', async () => {
    const lane = new BulkLane({
      singles: new SendPathPriority({ whileSendingPerSecond: 10 }),
      singlesPassed: () => Promise.resolve(false),
      sleep: () => {
        lane.close();
        return Promise.resolve();
      },
    });
    await expect(lane.admit([trigger('2026-12-02T10:00:00.000Z')])).rejects.toThrow(/stopping/);
  });

  it('admits an empty run without asking anything', async () => {
    const lane = new BulkLane({
      singles: { admit: () => Promise.reject(new Error('asked')) },
      singlesPassed: () => Promise.reject(new Error('asked')),
    });
    await expect(lane.admit([])).resolves.toBeUndefined();
  });
});
