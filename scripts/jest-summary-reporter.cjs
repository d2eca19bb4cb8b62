// Jest reporter: ends a run with one plain line "N passed, N failed" (a test file that could not run
// at all counts as one failure) and keeps the counts, with each file's duration, in .data/ for
// `npm test` (scripts/test.mjs), which adds up its lanes, and for .ci/run.
// Inside one of `npm test`'s lanes (POSTBUS_TEST_LANE), the line names the lane: the plain line is
// the one `npm test` prints over all of them.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { tierOf } = require('./test-lanes.cjs');

const root = join(__dirname, '..');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const files = results.testResults.map((file) => {
      const broken = Boolean(file.testExecError || (file.failureMessage && file.numFailingTests === 0));
      return {
        path: relative(root, file.testFilePath),
        tier: tierOf(file.testFilePath),
        seconds: Math.max(0, (file.perfStats.end - file.perfStats.start) / 1000),
        passed: file.numPassingTests,
        failed: file.numFailingTests + (broken ? 1 : 0),
      };
    });
    const passed = files.reduce((sum, file) => sum + file.passed, 0);
    const failed = files.reduce((sum, file) => sum + file.failed, 0);
    const lane = process.env.POSTBUS_TEST_LANE || undefined;
    const seconds = (Date.now() - results.startTime) / 1000;
    const dataDir = join(root, '.data');
    mkdirSync(join(dataDir, 'test-lanes'), { recursive: true });
    const summary = { lane: lane ?? 'all', passed, failed, seconds, files };
    writeFileSync(join(dataDir, 'test-lanes', `${lane ?? 'all'}.json`), JSON.stringify(summary, null, 1));
    if (lane) process.stdout.write(`\n${lane} lane, ${(seconds / 60).toFixed(1)} min: ${passed} passed, ${failed} failed\n`);
    else {
      writeFileSync(join(dataDir, 'test-summary.json'), JSON.stringify({ passed, failed }));
      process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    }
  }
}

module.exports = SummaryReporter;
