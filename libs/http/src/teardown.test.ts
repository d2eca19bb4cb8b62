import { startInSteps, Teardown } from './teardown';

describe('Teardown', () => {
  it('undoes the newest first, once, even when an undo throws, then throws the first error', async () => {
    const undone: string[] = [];
    const teardown = new Teardown();
    teardown.add(() => undone.push('database'));
    teardown.add(() => {
      undone.push('consumers');
      throw new Error('broker gone');
    });
    teardown.add(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      undone.push('server');
    });

    const first = teardown.run();
    const second = teardown.run();

    await expect(first).rejects.toThrow('broker gone');
    await expect(second).rejects.toThrow('broker gone');
    expect(undone).toEqual(['server', 'consumers', 'database']);
  });
});

describe('startInSteps', () => {
  it('answers what the steps made, with a stop that undoes them', async () => {
    const undone: string[] = [];
    const service = await startInSteps((teardown) => {
      teardown.add(() => undone.push('database'));
      teardown.add(() => undone.push('server'));
      return Promise.resolve({ port: 8080 });
    });

    expect(service.port).toBe(8080);
    expect(undone).toEqual([]);
    await service.stop();
    expect(undone).toEqual(['server', 'database']);
  });

  it('undoes the steps that ran when a later one fails, and throws that failure', async () => {
    const undone: string[] = [];
    const starting = startInSteps(async (teardown) => {
      teardown.add(() => undone.push('database'));
      teardown.add(() => {
        throw new Error('could not stop the consumers either');
      });
      await Promise.resolve();
      throw new Error('the port is taken');
    });

    await expect(starting).rejects.toThrow('the port is taken');
    expect(undone).toEqual(['database']);
  });
});
