#!/usr/bin/env node
/* global process */
// Imports the built package by its name, as an ESM consumer on plain Node would (run after `npm run build`).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdkRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', "import { Postbus } from '@postbus/sdk'; console.log(typeof Postbus)"],
  {
    cwd: sdkRoot,
    encoding: 'utf8',
  },
);
if (run.status !== 0 || run.stdout.trim() !== 'function') {
  process.stderr.write(run.stderr);
  process.exit(1);
}
process.stdout.write('@postbus/sdk imports as ESM from dist/\n');
