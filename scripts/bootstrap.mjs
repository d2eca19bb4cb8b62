#!/usr/bin/env node
// Runs before `npm start` and `npm test`, on a bare clone too, so it uses nothing but Node itself:
//   1. stops at once, in one line, when a tool the local infrastructure needs is missing;
//   2. installs the dependencies (`npm ci`) when node_modules is missing or older than the lockfile.
// Usage: node scripts/bootstrap.mjs start|test
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const purpose = process.argv[2] === 'test' ? 'test' : 'start';

const fail = (line) => {
  console.error(`[postbus] ${line}`);
  process.exit(1);
};

// `npm start` reads .env (the variables already set win); the check below must see the same values.
if (purpose === 'start' && existsSync(join(root, '.env'))) process.loadEnvFile(join(root, '.env'));

const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number);
// 20.19: the admin panel's build (Vite 7) needs it.
if (nodeMajor < 20 || (nodeMajor === 20 && nodeMinor < 19))
  fail(`Node ${process.versions.node} is too old: Postbus needs Node 20.19 or newer.`);

/** The major version a `<tool> -version` style command prints, or undefined when it does not run. */
function versionOf(command, args, pattern) {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  if (run.error || run.status !== 0) return undefined;
  const match = pattern.exec(`${run.stdout}\n${run.stderr}`);
  return match ? Number(match[1]) : 0;
}

// The PHP SDK's tests: PHP with curl, mbstring and xml (PHPUnit's JUnit log), and PHPUnit 9.6.
const PHP_PACKAGES = ['php8.2-cli', 'php8.2-curl', 'php8.2-mbstring', 'php8.2-xml', 'phpunit'];

const install = {
  java: 'Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless · macOS: brew install openjdk@17',
  mvn: 'Debian/Ubuntu: sudo apt-get install maven · macOS: brew install maven',
  go: 'Debian/Ubuntu: sudo apt-get install golang-go · macOS: brew install go',
  python: 'Debian/Ubuntu: sudo apt-get install python3-venv · macOS: brew install python',
  swaks: 'Debian/Ubuntu: sudo apt-get install swaks libio-socket-ssl-perl · macOS: brew install swaks',
  php: `Debian/Ubuntu: sudo apt-get install ${PHP_PACKAGES.join(' ')} · macOS: brew install php, then PHPUnit 9.6 as a phar`,
};

// The local Kafka needs Java 17+ and Maven (to fetch its jars), the local FerretDB needs Go (to build
// it); neither is needed when the environment points at a Kafka or a MongoDB of the user's own.
if (!process.env.KAFKA_BROKERS) {
  const java = versionOf('java', ['-version'], /version "(?:1\.)?(\d+)/);
  if (java === undefined) fail(`Java 17+ is missing (the local Kafka runs on it): ${install.java} — or set KAFKA_BROKERS.`);
  if (java < 17) fail(`Java ${java} is too old, the local Kafka needs 17+: ${install.java} — or set KAFKA_BROKERS.`);
  if (versionOf('mvn', ['-v'], /Maven (\d+)/) === undefined)
    fail(`Maven is missing (it fetches Kafka's jars): ${install.mvn} — or set KAFKA_BROKERS.`);
}
if (!process.env.MONGO_URL && versionOf('go', ['version'], /go(\d+)\./) === undefined)
  fail(`Go is missing (it builds the local FerretDB): ${install.go} — or set MONGO_URL.`);

// The contract test runs schemathesis (from PyPI) in a virtualenv of its own, the SMTP submission test Django.
if (purpose === 'test' && spawnSync('python3', ['-c', 'import ensurepip, venv']).status !== 0)
  fail(`Python 3 with venv is missing (the contract test installs schemathesis into a virtualenv): ${install.python}.`);

// The SMTP submission test sends with swaks, over TLS, beside Nodemailer, smtplib and Django.
if (purpose === 'test' && !/=== TLS supported/.test(spawnSync('swaks', ['--support'], { encoding: 'utf8' }).stdout ?? ''))
  fail(`swaks with TLS is missing (the SMTP submission test sends with it): ${install.swaks}.`);

// The PHP SDK's tests (sdks/php) run PHPUnit. As root with apt-get (CI, a fresh machine) they are
// installed here; anyone else gets the one line saying how.
if (purpose === 'test') {
  const phpReady = () =>
    spawnSync('php', ['-r', 'exit(extension_loaded("curl") && extension_loaded("mbstring") && extension_loaded("dom") ? 0 : 1);'])
      .status === 0 && versionOf('phpunit', ['--version'], /PHPUnit (\d+)/) !== undefined;
  if (!phpReady()) {
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const hasApt = spawnSync('apt-get', ['--version']).status === 0;
    if (asRoot && hasApt) {
      console.error(`[postbus] installing ${PHP_PACKAGES.join(' ')} (the PHP SDK's tests need them)`);
      const apt = spawnSync('sh', ['-c', `apt-get update -qq && apt-get install -y -qq ${PHP_PACKAGES.join(' ')} >/dev/null`], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      if (apt.status !== 0 || !phpReady()) fail(`Installing PHP and PHPUnit failed: ${install.php}.`);
    } else {
      fail(`PHP 8.1+ (curl, mbstring, xml) and PHPUnit are missing (the PHP SDK's tests run them): ${install.php}.`);
    }
  }
}

// npm writes node_modules/.package-lock.json on every install: older than the lockfile means stale.
const lockfile = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lockfile).mtimeMs) {
  console.error('[postbus] installing dependencies (npm ci); the first time takes a minute or two');
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  } catch {
    fail('npm ci failed (see above); nothing was started.');
  }
}
