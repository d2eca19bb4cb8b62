import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { portOpen, sleep, waitFor } from '@postbus/testing';

const run = promisify(execFile);

/** Debian's Postfix (`apt-get install postfix`, which .ci/run does). */
export const POSTFIX = '/usr/sbin/postfix';

export interface PostfixOptions {
  /** myhostname: the name it greets with, and its DSNs' Reporting-MTA. */
  hostname: string;
  /** The loopback address and port its smtpd listens on: what Postbus relays through. */
  smtpd: { host: string; port: number };
  /** The only resolver its SMTP client asks, on port 53 (resolv.conf takes no port). */
  nameserver: string;
  /** The port it delivers to at every MX (smtp_tcp_port), instead of 25. */
  mxPort: number;
}

export interface PrivatePostfix {
  /** For Postbus's SMTP_URL. */
  smtpUrl: string;
  hostname: string;
  /** Its log so far (maillog_file), one line per event, as `postfix/smtp[pid]: …` lines. */
  log(): Promise<string>;
  /** Stops it and deletes its configuration, queue and log. */
  stop(): Promise<void>;
}

/**
 * A private Postfix instance of its own (`postfix -c <dir>`): its own main.cf and master.cf, queue,
 * data directory and log in a temporary directory; the system's instance in /etc/postfix is neither
 * read nor touched. It relays for 127.0.0.0/8 and delivers by MX like any Internet MTA; its bounces
 * (DSNs) go out the same way, by MX of the envelope sender's domain.
 *
 * DNS: Postfix asks the system resolver (res_query), which reads nameservers from
 * /etc/resolv.conf, without a port. So its SMTP client runs chrooted into the queue directory
 * (master.cf's chroot column), where it reads `<queue>/etc/resolv.conf`, which names only
 * `nameserver`: every MX and address lookup of a delivery goes to the test's DNS server there.
 * glibc 2.34+ has its DNS and files NSS modules built in, so the chroot needs no libraries.
 * (postfix-script warns that this resolv.conf and /etc/resolv.conf differ: that is the point.)
 *
 * `postfix start` needs root (it binds, chroots and drops to the `postfix` user).
 */
export async function startPostfix(options: PostfixOptions): Promise<PrivatePostfix> {
  if (process.getuid?.() !== 0)
    throw new Error(`the Postfix relay test runs a private Postfix instance, and 'postfix start' needs root: run it as root (CI does)`);
  if (!existsSync(POSTFIX))
    throw new Error(
      `${POSTFIX} is missing: install Debian's Postfix without configuring the system's instance ` +
        `(echo 'postfix postfix/main_mailer_type select No configuration' | debconf-set-selections; ` +
        `DEBIAN_FRONTEND=noninteractive apt-get install -y postfix), as .ci/run does`,
    );
  const dir = await mkdtemp(join(tmpdir(), 'postbus-postfix-'));
  // Postfix's daemons run as the `postfix` user and must reach the queue below this directory.
  await chmod(dir, 0o755);
  const config = join(dir, 'conf');
  const queue = join(dir, 'queue');
  const maillog = join(dir, 'maillog');
  await mkdir(config);
  await mkdir(join(queue, 'etc'), { recursive: true });
  await writeFile(join(queue, 'etc', 'resolv.conf'), `nameserver ${options.nameserver}\noptions timeout:1 attempts:3\n`);
  if (existsSync('/etc/localtime')) await copyFile('/etc/localtime', join(queue, 'etc', 'localtime'));
  await writeFile(
    join(config, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${queue}`,
      `data_directory = ${join(dir, 'data')}`,
      `maillog_file = ${maillog}`,
      `maillog_file_prefixes = ${dir}`,
      `myhostname = ${options.hostname}`,
      'myorigin = $myhostname',
      // Nothing is local: every domain is relayed, by MX.
      'mydestination =',
      'local_recipient_maps =',
      'alias_maps =',
      'alias_database =',
      'relayhost =',
      'mynetworks = 127.0.0.0/8',
      'smtpd_relay_restrictions = permit_mynetworks, reject',
      // Its own address is its smtpd's only: MXes on other loopback addresses are not "myself" (no mail loop).
      `inet_interfaces = ${options.smtpd.host}`,
      'inet_protocols = ipv4',
      'smtp_host_lookup = dns',
      'disable_dns_lookups = no',
      `smtp_tcp_port = ${options.mxPort}`,
      'smtp_tls_security_level = none',
      'smtpd_tls_security_level = none',
      'biff = no',
      'append_dot_mydomain = no',
      // A delivery deferred by a hiccup is tried again within seconds, not minutes.
      'queue_run_delay = 1s',
      'minimal_backoff_time = 1s',
      'maximal_backoff_time = 2s',
      '',
    ].join('\n'),
  );
  const service = (name: string, type: string, priv: string, chroot: string, wakeup: string, limit: string, command: string) =>
    [name, type, priv, '-', chroot, wakeup, limit, command].join('\t');
  await writeFile(
    join(config, 'master.cf'),
    [
      service(`${options.smtpd.host}:${options.smtpd.port}`, 'inet', 'n', 'n', '-', '-', 'smtpd'),
      service('cleanup', 'unix', 'n', 'n', '-', '0', 'cleanup'),
      service('qmgr', 'unix', 'n', 'n', '300', '1', 'qmgr'),
      service('rewrite', 'unix', '-', 'n', '-', '-', 'trivial-rewrite'),
      service('bounce', 'unix', '-', 'n', '-', '0', 'bounce'),
      service('defer', 'unix', '-', 'n', '-', '0', 'bounce'),
      service('trace', 'unix', '-', 'n', '-', '0', 'bounce'),
      service('verify', 'unix', '-', 'n', '-', '1', 'verify'),
      service('flush', 'unix', 'n', 'n', '1000?', '0', 'flush'),
      service('proxymap', 'unix', '-', 'n', '-', '-', 'proxymap'),
      // Chrooted, so that it reads <queue>/etc/resolv.conf (see above).
      service('smtp', 'unix', '-', 'y', '-', '-', 'smtp'),
      service('relay', 'unix', '-', 'y', '-', '-', 'smtp'),
      service('showq', 'unix', 'n', 'n', '-', '-', 'showq'),
      service('error', 'unix', '-', 'n', '-', '-', 'error'),
      service('retry', 'unix', '-', 'n', '-', '-', 'error'),
      service('discard', 'unix', '-', 'n', '-', '-', 'discard'),
      service('anvil', 'unix', '-', 'n', '-', '1', 'anvil'),
      service('scache', 'unix', '-', 'n', '-', '1', 'scache'),
      service('postlog', 'unix-dgram', 'n', 'n', '-', '1', 'postlogd'),
      '',
    ].join('\n'),
  );
  const postfix = (command: string) =>
    run(POSTFIX, ['-c', config, command], { env: { ...process.env, PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${process.env['PATH'] ?? ''}` } });
  const log = async () => (existsSync(maillog) ? readFile(maillog, 'utf8') : '');
  try {
    await postfix('start');
    await waitFor(() => portOpen(options.smtpd.host, options.smtpd.port), {
      timeoutMs: 15_000,
      what: `Postfix's smtpd on ${options.smtpd.host}:${options.smtpd.port}`,
    });
  } catch (error) {
    const started = await log();
    await postfix('stop').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`the private Postfix did not start: ${(error as Error).message}\n${started}`, { cause: error });
  }
  return {
    smtpUrl: `smtp://${options.smtpd.host}:${options.smtpd.port}`,
    hostname: options.hostname,
    log,
    async stop() {
      const pidFile = join(queue, 'pid', 'master.pid');
      const pid = existsSync(pidFile) ? Number((await readFile(pidFile, 'utf8')).trim()) : undefined;
      await postfix('stop').catch(() => undefined);
      // `postfix stop` only signals the master; its children leave the queue before it goes.
      for (let i = 0; pid && i < 100 && alive(pid); i++) await sleep(100);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A random /24 of loopback addresses (127.x.y.0, x ≥ 100) for one test's servers, unlikely to be another run's. */
export const loopbackNet = () => `127.${randomInt(100, 255)}.${randomInt(1, 255)}`;

/**
 * The reply to `RCPT TO:<to>` (with a null sender, as a DSN comes) at an SMTP server, without
 * sending a message: whether an MX would take mail for the address.
 */
export function rcptReply(host: string, port: number, to: string, timeoutMs = 5_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    const commands = ['EHLO probe.test', 'MAIL FROM:<>', `RCPT TO:<${to}>`];
    let buffer = '';
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no SMTP reply from ${host}:${port} in ${timeoutMs} ms`)));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (line[3] === '-') continue; // a continued multiline reply
        const code = Number(line.slice(0, 3));
        const next = commands.shift();
        if (next === undefined || code >= 400) {
          socket.end('QUIT\r\n');
          resolve(code);
          return;
        }
        socket.write(`${next}\r\n`);
      }
    });
  });
}
