import { portSlice } from './processes';

describe('portSlice', () => {
  it('gives each jest worker ports of its own, below the ephemeral range, and the same slice to the same worker', () => {
    const slices = ['1', '2', '3', '4', '5', '6', '7'].map((worker) => portSlice(worker));
    for (const [i, slice] of slices.entries()) {
      expect(slice.from).toBeGreaterThanOrEqual(20_000);
      expect(slice.to).toBeLessThanOrEqual(32_768);
      expect(slice.to - slice.from).toBeGreaterThanOrEqual(1_000);
      for (const other of slices.slice(i + 1)) expect(slice.to <= other.from || other.to <= slice.from).toBe(true);
    }
    expect(portSlice('2')).toEqual(slices[1]);
  });

  it('gives a process outside jest (npm start, a bench) the slice no worker has', () => {
    const outside = portSlice(undefined);
    for (const worker of ['1', '2', '3']) expect(portSlice(worker).from).not.toBe(outside.from);
  });
});
