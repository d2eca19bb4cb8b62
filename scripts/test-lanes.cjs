// The two lanes of `npm test` (docs/testing.md). The concurrent lane runs every test file but those
// below, several workers at once: most files wait on Kafka, FerretDB and child processes, not on the
// CPU. The quiet lane runs the files below one after another on an otherwise idle machine, after the
// concurrent lane: their assertions are timing bounds, or they saturate both cores themselves, so
// beside other files they would measure the neighbours (or slow them past their own bounds), or they
// rewrite files that other files' processes read.
const { join } = require('node:path');

/** Each quiet file, from the repository root, with what makes it quiet. */
const QUIET = {
  'e2e/npm-start.e2e.test.ts': "runs npm start, whose build empties and rewrites the panel's files that other gateways serve",
  'e2e/burst-drain.e2e.test.ts':
    'two 20,000-trigger bursts: one drained by three consumers at once, reads p95 <= 500 ms meanwhile; one beside every consumer, reads timed',
  'e2e/template-isolation.e2e.test.ts': "one client's heavy renders against another's p99",
  'e2e/tenant-fairness.e2e.test.ts':
    "one client's 24 sends of 7 MB and four 500-message batches against another's acceptance within 2 s and p99",
  'e2e/keys.e2e.test.ts': 'a revoked key refused everywhere within 1 s',
  'e2e/mailer.e2e.test.ts': 'a trigger delivered within 2 s',
  'e2e/users.e2e.test.ts': 'a created user readable within 2 s',
  'e2e/payments.e2e.test.ts': '1,000 payments through the API counted in the revenue within 60 s',
  'e2e/scheduled-send.e2e.test.ts': 'a scheduled send handed over within its punctuality bound',
  'services/mailer/test/scheduled-sends.test.ts': '300 sends due in one second handed over within 6 s',
  'services/gateway/test/template-limits.test.ts': 'the event loop held at most a bound while renders run',
  'services/gateway/test/keys.test.ts': 'a revoked key refused on two gateways within 1 s',
  'services/users/test/user.repository.test.ts': 'profile reads at 20,000 users: median < 100 ms, max < 250 ms',
  'libs/templates/src/engine.test.ts': "the render pool: the caller's loop held < 50 ms, a busy tenant refused within 1 s",
  'libs/templates/src/templates.test.ts': 'hostile templates stopped within 500 ms to 1 s',
  'libs/logger/src/logger.test.ts': '100 KB masked in linear time, within 50 ms',
  'services/mailer/src/domain/delivery/deliverer.test.ts': "a hostile render holds the mailer's loop < 80 ms",
  'services/mailer/src/domain/delivery/tracking.test.ts': '200 KB of hostile HTML rewritten within 1 s',
  'services/inbound/src/parse/report-parser.test.ts': 'a runaway parse abandoned within 1.5 s, the loop never held 250 ms',
};

const root = join(__dirname, '..');
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const quietPattern = Object.keys(QUIET)
  .map((file) => escape(join(root, file)))
  .join('|');

/** Path patterns a jest project ignores to run only `lane`'s files ('concurrent' | 'quiet'; none: every file). */
function laneIgnorePatterns(lane) {
  if (lane === 'concurrent') return [`^(?:${quietPattern})$`];
  if (lane === 'quiet') return [`^(?!(?:${quietPattern})$)`];
  if (lane === undefined || lane === '') return [];
  throw new Error(`POSTBUS_TEST_LANE is '${lane}': it is 'concurrent', 'quiet' or unset`);
}

/** The tier of a test file, from where it lives (docs/testing.md). */
function tierOf(file) {
  const path = file.startsWith(root) ? file.slice(root.length + 1) : file;
  if (path.startsWith('e2e/')) return 'e2e';
  if (path.startsWith('services/admin/')) return 'panel';
  if (path.startsWith('deploy/')) return 'deploy';
  if (/^(libs|services)\/[^/]+\/test\//.test(path)) return 'integration';
  return 'unit';
}

module.exports = { QUIET, laneIgnorePatterns, tierOf };
