// Jest's order of test files: the longest first, so that no worker is left with a long file at the
// end while the others idle. A file's last duration (jest's cache) is used when it has one; a fresh
// clone has none, so a file is weighed by its tier and its size: one end-to-end file starts a whole
// system, one integration file a service, and a unit file nothing.
//
// The files that share a worker's system (docblock `@postbus-system shared`, see
// scripts/test-environment.cjs) come first, one after another: a worker then runs several of them
// on the one system it starts, and stops it before it turns to the rest.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { extract, parse } = require('jest-docblock');
const { tierOf } = require('./test-lanes.cjs');

/** Rough seconds per byte of test code, by tier: only the order they give matters. */
const WEIGHT = { e2e: 1e-2, integration: 2e-3, panel: 2e-4, deploy: 2e-4, unit: 1e-4 };

/** Whether an end-to-end file runs on its worker's shared system. */
const sharesSystem = (path) => tierOf(path) === 'e2e' && parse(extract(readFileSync(path, 'utf8')))['postbus-system'] === 'shared';

class LongestFirst extends Sequencer {
  sort(tests) {
    const estimate = (test) => {
      const cached = this.time(test);
      if (cached !== undefined) return cached / 1000;
      return WEIGHT[tierOf(test.path)] * (test.context.hasteFS.getSize(test.path) ?? 0);
    };
    const seconds = new Map(tests.map((test) => [test.path, estimate(test)]));
    const shared = new Set(tests.filter((test) => sharesSystem(test.path)).map((test) => test.path));
    const group = (test) => (shared.has(test.path) ? 0 : 1);
    return [...tests].sort((a, b) => group(a) - group(b) || seconds.get(b.path) - seconds.get(a.path));
  }
}

module.exports = LongestFirst;
