/* global require, module */
// Loaded (--require) by a BudgetedPool's worker threads when their module is TypeScript source
// (under jest): the worker then loads it the way jest does, through swc. Built code (dist/) never
// loads this file. (The same as libs/templates' for its render pool.)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readFileSync } = require('node:fs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (mod, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  mod._compile(code, filename);
};
module.exports = {};
