// Jest's node environment, plus the one end-to-end system a process shares between the test files
// that ask for it with the docblock pragma `@postbus-system shared` (docs/testing.md): files that
// neither kill nor reconfigure a service, each with its own client, project and addresses.
//
// The holder outlives the files (this module is loaded once per jest worker, or once in an in-band
// run): e2e/system.ts's sharedSystem() starts the system into it in the first such file, the next
// ones reuse it, and a file that does not share it stops it first, so that no system idles beside
// another file's work. At the end, global-teardown.ts stops it in an in-band run; a worker that is
// told to end sends its processes SIGTERM as it exits (they stop gracefully on their own).
const { TestEnvironment } = require('jest-environment-node');

const HOLDER = Symbol.for('postbus.e2e.sharedSystem');

/** @type {{ current: Promise<{ stop(): Promise<void> }> | undefined, processes: import('node:child_process').ChildProcess[], stop(): Promise<void> }} */
const holder = (globalThis[HOLDER] ??= {
  current: undefined,
  processes: [],
  async stop() {
    const current = this.current;
    this.current = undefined;
    this.processes = [];
    const system = await current?.catch(() => undefined);
    await system?.stop();
  },
});

process.once('exit', () => {
  for (const child of holder.processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

class PostbusTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.sharesSystem = context.docblockPragmas['postbus-system'] === 'shared';
  }

  async setup() {
    await super.setup();
    if (this.sharesSystem) this.global.postbusSharedSystem = holder;
    else await holder.stop();
  }
}

module.exports = PostbusTestEnvironment;
