import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// Both read build output (the gateway's and the SDK's dist/): `npm test` builds before it runs jest.
const sdkRoot = join(__dirname, '..');

describe('the SDK build', () => {
  it('src/generated/openapi.ts matches the OpenAPI document the gateway serves (regenerate with npm run generate -w @postbus/sdk)', () => {
    const check = spawnSync(process.execPath, [join(sdkRoot, 'scripts', 'generate-types.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('is importable as ESM by plain Node through its package name', () => {
    const script = [
      "import { Postbus, verifyWebhook, ValidationError, PostbusError } from '@postbus/sdk';",
      "const postbus = new Postbus({ clientId: 'c', apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });",
      "console.log(typeof postbus.emails.send, typeof verifyWebhook, new ValidationError('x') instanceof PostbusError);",
    ].join('\n');
    // From the SDK's own directory, '@postbus/sdk' resolves through package.json "exports" to dist/.
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: sdkRoot, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function function true');
  });
});
