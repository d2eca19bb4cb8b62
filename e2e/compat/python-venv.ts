import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const cacheDir = process.env['POSTBUS_CACHE_DIR'] || join(homedir(), '.cache', 'postbus');

/**
 * The python of a virtual environment holding one PyPI package at a pinned version, made once and
 * kept in the cache (POSTBUS_CACHE_DIR, else ~/.cache/postbus), as CI's runs find it again.
 */
export function pythonWith(pkg: string, version: string): string {
  const venv = join(cacheDir, `${pkg}-${version}`);
  const interpreter = join(venv, 'bin', 'python');
  if (!existsSync(join(venv, '.installed'))) {
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(join(venv, 'bin', 'pip'), ['install', '--quiet', `${pkg}==${version}`], { stdio: 'inherit' });
    execFileSync('touch', [join(venv, '.installed')]);
  }
  return interpreter;
}
