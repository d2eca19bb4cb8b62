/**
 * Preloaded with `--require` (NODE_OPTIONS) into a service the mailer benchmark profiles (BENCH_PROFILE): Node 20
 * refuses --cpu-prof in NODE_OPTIONS, so this starts V8's sampling profiler in-process and writes the profile as
 * the process exits, to $BENCH_PROFILE_FILE (open it in Chrome DevTools or speedscope). The main thread only: worker
 * threads inherit the preload, but a pool ends them with terminate(), which runs no exit handler, and one that did
 * end by itself would write its profile over the main thread's.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

const file = process.env['BENCH_PROFILE_FILE'];
if (file && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  // An in-thread session answers synchronously, so the profile can be taken in the exit handler.
  process.once('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
