/* global require, module */
// Loaded (--require) by the render pool's worker threads when the engine itself runs from its
// TypeScript source (under jest): the worker then loads worker.ts the way jest does, through swc.
// Built code (dist/) never loads this file.
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
