import { FaultInjector, validateFaultSpec } from './fault';

describe('FaultInjector', () => {
  it('when no fault is set, then nothing is refused', () => {
    expect(new FaultInjector().take('rcpt')).toBeUndefined();
  });

  it('when a fault has a count, then that many messages at its stage are refused', () => {
    const faults = new FaultInjector();
    faults.set({ code: 451, count: 2 });
    expect(faults.take('data')).toBeUndefined();
    expect(faults.take('rcpt')).toMatchObject({ responseCode: 451, message: expect.stringContaining('try again') });
    expect(faults.current()?.remaining).toBe(1);
    expect(faults.take('rcpt')?.responseCode).toBe(451);
    expect(faults.take('rcpt')).toBeUndefined();
    expect(faults.current()).toBeUndefined();
  });

  it('when a fault has a duration, then it ends then, even with messages left', () => {
    let now = 1_000;
    const faults = new FaultInjector(() => now);
    faults.set({ code: 550, message: 'no', count: 10, forMs: 500, stage: 'data' });
    expect(faults.take('data')).toMatchObject({ responseCode: 550, message: 'no' });
    now = 1_500;
    expect(faults.take('data')).toBeUndefined();
  });

  it('when a fault request is invalid, then every problem is named', () => {
    expect(validateFaultSpec({ code: 250, count: 0, for_ms: 1.5, stage: 'mail', message: 'a\r\nb' }).problems).toHaveLength(5);
    expect(validateFaultSpec(null).problems).toHaveLength(1);
    expect(validateFaultSpec({ code: 421, for_ms: 100, stage: 'data' }).spec).toEqual({ code: 421, forMs: 100, stage: 'data' });
  });
});
