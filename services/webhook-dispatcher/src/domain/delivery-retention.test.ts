import { createLogger } from '@postbus/logger';
import { DeliveryRetention } from './delivery-retention';

const HOUR = 3_600_000;

function setup() {
  const claimed = new Set<number>();
  const forgotten: number[] = [];
  const cutoffs: Date[] = [];
  const retention = (): DeliveryRetention =>
    new DeliveryRetention({
      logger: createLogger({ service: 'retention-test', level: 'error' }),
      retentionDays: 30,
      intervalMs: HOUR,
      runs: {
        claim: (slot) => {
          if (claimed.has(slot)) return Promise.resolve(false);
          claimed.add(slot);
          return Promise.resolve(true);
        },
        forget: (slot) => {
          forgotten.push(slot);
          return Promise.resolve();
        },
      },
      deliveries: {
        purgeOlderThan: (cutoff) => {
          cutoffs.push(cutoff);
          return Promise.resolve({ deliveries: 3, attempts: 4 });
        },
      },
    });
  return { retention, forgotten, cutoffs };
}

describe('DeliveryRetention', () => {
  it('purges what is older than the retention, once per interval whichever instances run', async () => {
    const { retention, cutoffs, forgotten } = setup();
    const now = new Date('2026-03-01T10:15:00.000Z');
    const [a, b] = [retention(), retention()];
    expect(await a.runOnce(now)).toEqual({ deliveries: 3, attempts: 4 });
    expect(await b.runOnce(new Date(now.getTime() + 60_000))).toBeUndefined(); // the same interval: the other instance has it
    expect(cutoffs).toEqual([new Date('2026-01-30T10:15:00.000Z')]);
    const slot = Math.floor(now.getTime() / HOUR);
    expect(forgotten).toEqual([slot - 2]);
    expect(await b.runOnce(new Date(now.getTime() + HOUR))).toEqual({ deliveries: 3, attempts: 4 }); // the next interval
    expect(cutoffs).toHaveLength(2);
  });
});
