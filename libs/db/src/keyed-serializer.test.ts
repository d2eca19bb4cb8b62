import { KeyedSerializer } from './index';

describe('KeyedSerializer', () => {
  it('runs work for one key one at a time, in order, and other keys alongside', async () => {
    const serial = new KeyedSerializer();
    const log: string[] = [];
    const step = (name: string, ms: number) => async () => {
      log.push(`${name}:start`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`${name}:end`);
    };
    await Promise.all([serial.run('a', step('a1', 30)), serial.run('a', step('a2', 1)), serial.run('b', step('b1', 1))]);
    expect(log.indexOf('a1:end')).toBeLessThan(log.indexOf('a2:start'));
    expect(log.indexOf('b1:end')).toBeLessThan(log.indexOf('a1:end'));
  });

  it('goes on with the next work after a failure', async () => {
    const serial = new KeyedSerializer();
    await expect(serial.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(serial.run('a', () => Promise.resolve(42))).resolves.toBe(42);
  });
});
