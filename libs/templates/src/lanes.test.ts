import { TenantBusyError, TenantLanes } from './lanes';

const later = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('TenantLanes', () => {
  it('runs at most perTenant jobs of a tenant at once, in order, and other tenants beside them', async () => {
    const lanes = new TenantLanes(1, 10_000);
    const started: string[] = [];
    const gates = [later(), later(), later()];
    const job = (name: string, gate: { promise: Promise<void> }) => () => {
      started.push(name);
      return gate.promise;
    };
    const a1 = lanes.run('a', job('a1', gates[0]!));
    const a2 = lanes.run('a', job('a2', gates[1]!));
    const b1 = lanes.run('b', job('b1', gates[2]!));
    await Promise.resolve();
    expect(started).toEqual(['a1', 'b1']);
    expect(lanes.load('a')).toBe(2);
    gates[0]!.resolve();
    await a1;
    await Promise.resolve();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    gates[1]!.resolve();
    gates[2]!.resolve();
    await Promise.all([a2, b1]);
    expect(lanes.load('a')).toBe(0);
  });

  it('a job waiting longer than maxWaitMs is refused without running, and the lane goes on', async () => {
    const lanes = new TenantLanes(1, 50);
    const gate = later();
    const first = lanes.run('a', () => gate.promise);
    let ran = false;
    await expect(
      lanes.run('a', () => {
        ran = true;
        return Promise.resolve();
      }),
    ).rejects.toBeInstanceOf(TenantBusyError);
    expect(ran).toBe(false);
    // A caller that cannot wait at all is refused at once while the lane is full.
    await expect(lanes.run('a', () => Promise.resolve(), 0)).rejects.toBeInstanceOf(TenantBusyError);
    gate.resolve();
    await first;
    await expect(lanes.run('a', () => Promise.resolve('next'))).resolves.toBe('next');
  });
});
