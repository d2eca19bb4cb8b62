import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { connect } from 'node:tls';
import nodemailer from 'nodemailer';

/**
 * Real SMTP clients no one here wrote, each sending one message as an app would: Nodemailer's SMTP
 * transport, Python's smtplib, swaks, and Django's SMTP backend (from PyPI, in a virtual
 * environment of its own). Each speaks to SMTP submission and says the server's last reply.
 */

/** One message to send, and how to reach and trust the server. */
export interface SmtpSpec {
  host: string;
  port: number;
  /** STARTTLS on the submission port, or implicit TLS on the other. */
  tls: 'starttls' | 'implicit';
  /** The server's certificate (self-signed in development): the client trusts exactly it. */
  cafile: string;
  user: string;
  password: string;
  /** `Name <address>`. */
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  html: string;
  /** A file to attach (its media type from its name). */
  attachment?: string;
  headers: Record<string, string>;
}

/** How a client's conversation ended: the reply code and text of its last command, as the client reports it (Django's backend says nothing of a 250). */
export interface SmtpOutcome {
  code: number;
  reply: string;
}

export type SmtpClient = (spec: SmtpSpec) => Promise<SmtpOutcome>;

const here = __dirname;
const DJANGO_VERSION = '5.2.19';
const cacheDir = process.env['POSTBUS_CACHE_DIR'] || join(homedir(), '.cache', 'postbus');

/** The address of `Name <address>`. */
const addressOf = (mailbox: string) => /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;

function run(
  command: string,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...options.env };
    const child = execFile(command, args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** Runs a Python client script with the spec on stdin; its last stdout line is its JSON outcome. */
async function python(interpreter: string, script: string, spec: SmtpSpec): Promise<Record<string, unknown>> {
  // A client that trusts the system's certificates (Django's backend) trusts the server's through OpenSSL's SSL_CERT_FILE.
  const { stdout, stderr } = await run(interpreter, [join(here, script)], {
    input: JSON.stringify(spec),
    env: { SSL_CERT_FILE: spec.cafile },
  });
  const last = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`${script} said nothing readable:\n${stdout}\n${stderr}`);
  }
}

/** The server's certificate, as PEM, read from a TLS connection to it. */
export function peerCertificate(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerX509Certificate()!.toString());
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

export const nodemailerClient: SmtpClient = async (spec) => {
  const transport = nodemailer.createTransport({
    host: spec.host,
    port: spec.port,
    secure: spec.tls === 'implicit',
    requireTLS: spec.tls === 'starttls',
    tls: { ca: readFileSync(spec.cafile) },
    auth: { user: spec.user, pass: spec.password },
  });
  try {
    const info = await transport.sendMail({
      from: spec.from,
      to: spec.to,
      cc: spec.cc,
      bcc: spec.bcc,
      subject: spec.subject,
      text: spec.text,
      html: spec.html,
      headers: spec.headers,
      ...(spec.attachment ? { attachments: [{ path: spec.attachment, filename: basename(spec.attachment) }] } : {}),
    });
    return { code: Number(info.response.slice(0, 3)), reply: info.response.slice(4) };
  } catch (error) {
    const { responseCode, response } = error as { responseCode?: number; response?: string };
    if (!responseCode) throw error;
    return { code: responseCode, reply: (response ?? '').slice(4) };
  } finally {
    transport.close();
  }
};

export const smtplibClient: SmtpClient = async (spec) => {
  const outcome = await python('python3', 'smtplib_send.py', spec);
  return { code: Number(outcome['code']), reply: String(outcome['reply']) };
};

export const swaksClient: SmtpClient = async (spec) => {
  const args = [
    '--server',
    `${spec.host}:${spec.port}`,
    spec.tls === 'implicit' ? '--tls-on-connect' : '--tls',
    '--auth',
    'PLAIN',
    '--auth-user',
    spec.user,
    '--auth-password',
    spec.password,
    '--from',
    addressOf(spec.from),
    '--to',
    [...spec.to, ...spec.cc, ...spec.bcc].map(addressOf).join(','),
    '--header',
    `From: ${spec.from}`,
    '--header',
    `To: ${spec.to.join(', ')}`,
    ...(spec.cc.length > 0 ? ['--header', `Cc: ${spec.cc.join(', ')}`] : []),
    '--header',
    `Subject: ${spec.subject}`,
    ...Object.entries(spec.headers).flatMap(([name, value]) => ['--add-header', `${name}: ${value}`]),
    '--attach-type',
    'text/plain',
    '--attach-body',
    spec.text,
    '--attach-type',
    'text/html',
    '--attach-body',
    spec.html,
    ...(spec.attachment ? ['--attach-type', 'application/pdf', '--attach', `@${spec.attachment}`] : []),
  ];
  const { stdout, stderr } = await run('swaks', args);
  // The transcript's server lines: `<~  250 …` over TLS (`<-` before it), `<~* ` for an error.
  const replies = [...stdout.matchAll(/^<[-~]\*? +(\d{3})[ -](.*)$/gm)];
  const last = replies.pop();
  if (!last) throw new Error(`swaks said nothing readable:\n${stdout}\n${stderr}`);
  // After DATA's reply swaks says QUIT: the reply before the 221 is the one that ended the transaction.
  const ending = last[1] === '221' ? replies.pop()! : last;
  return { code: Number(ending[1]), reply: ending[2]! };
};

/** A virtual environment with Django from PyPI (made once, kept in the cache); its python. */
function djangoPython(): string {
  const venv = join(cacheDir, `django-${DJANGO_VERSION}`);
  const interpreter = join(venv, 'bin', 'python');
  if (!existsSync(join(venv, '.installed'))) {
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(join(venv, 'bin', 'pip'), ['install', '--quiet', `Django==${DJANGO_VERSION}`], { stdio: 'inherit' });
    execFileSync('touch', [join(venv, '.installed')]);
  }
  return interpreter;
}

export const djangoClient: SmtpClient = async (spec) => {
  const outcome = await python(djangoPython(), 'django_send.py', spec);
  // Django's backend returns how many messages went, not the server's reply.
  if (outcome['sent'] === 1) return { code: 250, reply: '' };
  return { code: Number(outcome['code']), reply: String(outcome['reply']) };
};
