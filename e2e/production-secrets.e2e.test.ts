import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@postbus/testing';

/** Starts a built service (services/<name>/dist/main.js) as an operator would, and waits for it to end. */
function startInProduction(service: string, env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync(process.execPath, [join(repoRoot, 'services', service, 'dist', 'main.js')], {
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('a service started with NODE_ENV=production', () => {
  it('13.8 production mode: a missing secret stops the service at start naming it', () => {
    const secret = 's'.repeat(40);
    const started = startInProduction('erasure', { INTERNAL_API_SECRET: secret });
    expect(started.status).toBe(1);
    expect(started.stderr).toBe('ERASURE_AUDIT_KEY must be set when NODE_ENV=production\n');
    expect(started.stdout).toBe('');
  });

  it.each([
    ['gateway', 'INTERNAL_API_SECRET, SECRETS_KEY, SESSION_SECRET, TRACKING_SECRET'],
    ['users', 'INTERNAL_API_SECRET'],
    ['mailer', 'INTERNAL_API_SECRET, SECRETS_KEY, TRACKING_SECRET, ERASURE_AUDIT_KEY'],
    ['webhook-dispatcher', 'INTERNAL_API_SECRET, SECRETS_KEY'],
    ['payments', 'INTERNAL_API_SECRET'],
    ['erasure', 'INTERNAL_API_SECRET, ERASURE_AUDIT_KEY'],
  ])('when %s has none of its secrets, then it exits at once with one line naming them (%s)', (service, names) => {
    const started = startInProduction(service, {});
    expect(started.status).toBe(1);
    expect(started.stderr).toBe(`${names} must be set when NODE_ENV=production\n`);
  });
});
