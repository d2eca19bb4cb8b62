// Jest reporter: ends every run with one plain line "N passed, N failed" (a test file that could not
// run at all counts as one failure) and keeps the counts in .data/test-summary.json for .ci/run.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const brokenFiles = results.testResults.filter(
      (file) => file.testExecError || (file.failureMessage && file.numFailingTests === 0),
    ).length;
    const passed = results.numPassedTests;
    const failed = results.numFailedTests + brokenFiles;
    const dataDir = join(__dirname, '..', '.data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'test-summary.json'), JSON.stringify({ passed, failed }));
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  }
}

module.exports = SummaryReporter;
