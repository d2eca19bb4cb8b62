import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { call, dataDir, repoRoot } from '@postbus/testing';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';

const SCHEMATHESIS_VERSION = '4.32.5';
const cacheDir = process.env['POSTBUS_CACHE_DIR'] || join(homedir(), '.cache', 'postbus');

/** schemathesis from PyPI in a virtualenv of its own (made once, kept in the cache); its `st` command. */
function schemathesis(): string {
  const venv = join(cacheDir, `schemathesis-${SCHEMATHESIS_VERSION}`);
  const st = join(venv, 'bin', 'st');
  if (!existsSync(st)) {
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(join(venv, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`], { stdio: 'inherit' });
  }
  return st;
}

describe('the OpenAPI document says exactly what the server does (schemathesis)', () => {
  let system: RunningSystem;
  let client: DemoClient;
  /** The project the generated DELETE /v1/projects/{projectId} removes (see schemathesis.toml). */
  let spareProjectId: string;

  beforeAll(async () => {
    // Limits off: schemathesis sends thousands of requests, many with wrong credentials on purpose.
    system = await startSystem({ RATE_LIMIT_PER_SECOND: '0', AUTH_FAILURE_LIMIT_PER_MINUTE: '0' });
    client = await createClientAndProject(system);
    await createSendableEmail(system, client);
    const spare = await call(system.gatewayUrl, 'POST', '/v1/projects', { auth: client.auth, json: { name: 'deleted by schemathesis' } });
    expect(spare.status).toBe(201);
    spareProjectId = (spare.body as { id: string }).id;
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('13.12 every generated request: no server error, no undocumented status, every answer matches the document', async () => {
    mkdirSync(dataDir(), { recursive: true });
    // Asynchronously: the system's DNS server answers from this process's event loop.
    const child = spawn(
      schemathesis(),
      [
        '--config-file',
        join(repoRoot, 'e2e', 'schemathesis.toml'),
        'run',
        `${system.gatewayUrl}/v1/openapi.json`,
        '--auth',
        `${client.clientId}:${client.apiKey}`,
        '--checks',
        'all',
        // Revoking keys is left to its own tests: a generated DELETE /v1/keys/{id} would revoke the
        // key this run authenticates with, and every later request would be a 401.
        '--exclude-operation-id',
        'revokeApiKey',
        '--max-examples',
        process.env['SCHEMATHESIS_MAX_EXAMPLES'] ?? '10',
        '--seed',
        process.env['SCHEMATHESIS_SEED'] ?? '20261123',
        // One worker: with several threads, CPython 3.11's parser trips inside hypothesis
        // ("AST constructor recursion depth mismatch"), an error of the tool, not of the API.
        '--workers',
        '1',
        '--request-timeout',
        '10',
        '--no-color',
      ],
      // Its working directory is .data/: schemathesis keeps a cache (.schemathesis/) there.
      {
        cwd: dataDir(),
        env: { ...process.env, POSTBUS_PROJECT_ID: client.projectId, POSTBUS_SPARE_PROJECT_ID: spareProjectId },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 600_000,
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    mkdirSync(dataDir(), { recursive: true });
    writeFileSync(join(dataDir(), 'schemathesis.log'), output);
    const summary = output.slice(output.lastIndexOf('SUMMARY'));
    const starts = ['= ERRORS =', '= FAILURES ='].map((heading) => output.indexOf(heading)).filter((at) => at >= 0);
    const findings = starts.length ? output.slice(Math.min(...starts)) : output.slice(-20_000);
    // The number of generated cases, for the closing note and the CI log.
    console.log(`schemathesis ${SCHEMATHESIS_VERSION}: ${/(\d+) generated/.exec(summary)?.[0] ?? 'no count'}\n${summary}`);
    if (status !== 0)
      throw new Error(`schemathesis found problems (exit ${status}; all of it in .data/schemathesis.log):\n${findings.slice(0, 20_000)}`);
  }, 660_000);
});
