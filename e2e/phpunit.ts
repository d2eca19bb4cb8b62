import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@postbus/testing';

/** The PHP SDK, whose PHPUnit suites these helpers run so that each PHPUnit test counts as one jest test. */
export const phpSdkDir = join(repoRoot, 'sdks/php');
const config = join(phpSdkDir, 'phpunit.xml.dist');

export const PHP_INSTALL_HINT =
  'The PHP SDK tests need PHP 8.1+ (curl, mbstring, xml) and PHPUnit 9.6. Debian/Ubuntu: sudo apt-get install php8.2-cli php8.2-curl php8.2-mbstring php8.2-xml phpunit · macOS: brew install php, then PHPUnit 9.6 as a phar — or run `node scripts/bootstrap.mjs test` as root, which installs them.';

export type Listing = { ok: true; names: string[] } | { ok: false; error: string };

/**
 * The suite's test names ("Class::method" or "Class::method with data set …"), read synchronously
 * at module load so that jest can declare one test for each.
 */
export function listPhpunitTests(suite: 'unit' | 'integration'): Listing {
  let out: string;
  try {
    out = execFileSync('phpunit', ['-c', config, '--testsuite', suite, '--list-tests'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return { ok: false, error: `phpunit is not installed. ${PHP_INSTALL_HINT}` };
    return { ok: false, error: `phpunit could not list the ${suite} suite:\n${(error as Error).message}` };
  }
  const names = out
    .split('\n')
    .filter((line) => line.startsWith(' - '))
    .map((line) => asInJunit(line.slice(3).trim()));
  if (names.length === 0) return { ok: false, error: `phpunit listed no tests in the ${suite} suite:\n${out}` };
  return { ok: true, names };
}

/** --list-tests prints a data set as `method"name"` or `method#0`; the JUnit log as `method with data set "name"`. */
function asInJunit(listed: string): string {
  const named = /^(.*::\w+)(".*")$/.exec(listed);
  if (named) return `${named[1]} with data set ${named[2]}`;
  const numbered = /^(.*::\w+)(#\d+)$/.exec(listed);
  return numbered ? `${numbered[1]} with data set ${numbered[2]}` : listed;
}

/** One PHPUnit test's outcome, from the JUnit log. */
export interface PhpunitOutcome {
  passed: boolean;
  message: string;
}

export interface PhpunitRun {
  outcomes: Map<string, PhpunitOutcome>;
  /** PHPUnit's own output, shown when a test is missing from the log. */
  output: string;
  exitCode: number | null;
}

const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&amp;/g, '&');

/** Reads PHPUnit 9's JUnit XML: each <testcase> with a <failure>, <error>, <warning> or <skipped> child did not pass. */
export function parseJunit(xml: string): Map<string, PhpunitOutcome> {
  const outcomes = new Map<string, PhpunitOutcome>();
  const testcase = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const match of xml.matchAll(testcase)) {
    const attributes = match[1] ?? '';
    const name = decode(/\bname="([^"]*)"/.exec(attributes)?.[1] ?? '');
    const cls = decode(/\bclass="([^"]*)"/.exec(attributes)?.[1] ?? '');
    const inner = match[3] ?? '';
    const problem = /<(failure|error|warning|skipped)\b[^>]*?(?:\/>|>([\s\S]*?)<\/\1>)/.exec(inner);
    outcomes.set(`${cls}::${name}`, {
      passed: problem === null,
      message: problem ? `${problem[1]}: ${decode(problem[2] ?? '')}` : '',
    });
  }
  return outcomes;
}

/** Runs one suite once (asynchronously: a fault proxy in this process must keep answering) and reads its JUnit log. */
export async function runPhpunit(suite: 'unit' | 'integration', env: Record<string, string> = {}): Promise<PhpunitRun> {
  const dir = mkdtempSync(join(tmpdir(), `phpunit-${suite}-`));
  const junit = join(dir, 'junit.xml');
  try {
    const { output, exitCode } = await new Promise<{ output: string; exitCode: number | null }>((resolve, reject) => {
      const child = spawn('phpunit', ['-c', config, '--testsuite', suite, '--log-junit', junit], {
        cwd: phpSdkDir,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ output: text, exitCode: code }));
    });
    let xml = '';
    try {
      xml = readFileSync(junit, 'utf8');
    } catch {
      // No log: every test is reported missing, with PHPUnit's output.
    }
    return { outcomes: parseJunit(xml), output, exitCode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fails with PHPUnit's own message when the test did not pass or did not run. */
export function expectPhpunitPassed(run: PhpunitRun | undefined, name: string): void {
  if (!run) throw new Error('PHPUnit did not run (see the beforeAll error above).');
  const outcome = run.outcomes.get(name);
  if (!outcome) throw new Error(`${name} is not in PHPUnit's JUnit log. PHPUnit said:\n${run.output.slice(-4000)}`);
  if (!outcome.passed) throw new Error(`${name}\n${outcome.message}`);
}
