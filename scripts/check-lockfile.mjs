#!/usr/bin/env node
// Fails when package-lock.json lacks an entry for some platform's optional binary (e.g. a macOS or
// Windows build of @swc/core): `npm ci` on that platform would refuse the lockfile as out of sync,
// although it passes on this one. Happens when a registry served only some platforms' builds of a
// version at the time the lockfile was written; pin a version whose every build is served.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { packages } = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

/** Where npm would look for `name` when installed from the package at `path`: nested first, then each parent. */
function resolves(path, name) {
  for (let at = path; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
    if (packages[`${at ? `${at}/` : ''}node_modules/${name}`]) return true;
    if (!at) return false;
  }
}

const missing = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!resolves(path, name)) missing.push(`${name} (optional dependency of ${path || 'the root'})`);
  }
}
if (missing.length) {
  console.error(`package-lock.json has no entry for ${missing.length} optional package(s); npm ci would refuse it on their platforms:`);
  for (const line of missing) console.error(`  - ${line}`);
  process.exit(1);
}
console.log(`package-lock.json lists every platform's optional packages (${Object.keys(packages).length} entries)`);
