/**
 * What a service's start() has set going, to be undone in reverse: each step of the start
 * registers how to undo what it made (close the database, stop the consumers, close the server)
 * as it makes it, so the stop undoes the newest first, and a start that fails half-way undoes what
 * it had already made instead of leaving it running.
 */
export class Teardown {
  private readonly undos: Array<() => unknown> = [];
  private running: Promise<void> | undefined;

  /** Registers `undo`, to run before everything registered earlier. */
  add(undo: () => unknown): void {
    this.undos.push(undo);
  }

  /**
   * Runs every registered undo, newest first, once (a second call waits for the first). An undo
   * that throws does not keep the older ones from running; the first error is thrown after all ran.
   */
  run(): Promise<void> {
    this.running ??= (async () => {
      let failure: { error: unknown } | undefined;
      for (let undo = this.undos.pop(); undo; undo = this.undos.pop()) {
        try {
          await undo();
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    })();
    return this.running;
  }
}

/**
 * A service's start() from its steps: `steps` makes the service, registering each undo on the
 * teardown it is given, and its answer gains the `stop()` that runs them. If a step throws, what
 * the earlier steps made is undone before the error goes on.
 */
export async function startInSteps<T extends object>(steps: (teardown: Teardown) => Promise<T>): Promise<T & { stop(): Promise<void> }> {
  const teardown = new Teardown();
  try {
    const service = await steps(teardown);
    return { ...service, stop: () => teardown.run() };
  } catch (error) {
    await teardown.run().catch(() => undefined); // the start's own error is the one worth reporting
    throw error;
  }
}
