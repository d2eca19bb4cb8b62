/** @postbus-system shared */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { repoRoot, waitFor } from '@postbus/testing';
import { projectCall, withSystemAndClient } from './project-api';
import { peerCertificate } from './smtp-clients/clients';
import type { DemoClient, RunningSystem } from './system';

const DOMAIN = 'mail.docs-page.example';
const PAGE = join(repoRoot, 'docs', 'send-from-any-app.md');
/** The receipt both scripts attach, as they make it. */
const RECEIPT = Buffer.from('%PDF-1.4\n% your receipt\n');

/** The page's one fenced code block in `language` that holds `marker`, as it stands on the page. */
function codeBlockOf(language: string, marker: string): string {
  const page = readFileSync(PAGE, 'utf8');
  const blocks = [...page.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].filter(
    ([, lang, code]) => lang === language && code!.includes(marker),
  );
  if (blocks.length !== 1) throw new Error(`docs/send-from-any-app.md has ${blocks.length} ${language} blocks with "${marker}", not one`);
  return blocks[0]![2]!;
}

/** Runs a program with the environment given on top of this one; its exit code and output. */
function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The whole scripts of docs/send-from-any-app.md, taken from the page as it stands and run as a
 * reader would run them (Python's smtplib with python3, the Nodemailer script with node) against
 * SMTP submission of the real stack, with the settings they read from the environment: each mail
 * arrives at the sink with its HTML, text and attachment, without its control headers, and the
 * message log shows it sent over SMTP with the tags and metadata those headers set (issue 49).
 */
describe('docs/send-from-any-app.md: its scripts send through Postbus as they stand on the page', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let dir: string;
  let cafile: string;

  withSystemAndClient({ sendable: { domain: DOMAIN }, shared: true, timeoutMs: 120_000 }, (started) => ({ system, client } = started));

  beforeAll(async () => {
    if (!system.submission) throw new Error('the shared system runs SMTP submission');
    dir = mkdtempSync(join(tmpdir(), 'docs-page-e2e-'));
    cafile = join(dir, 'submission-cert.pem');
    writeFileSync(cafile, await peerCertificate('127.0.0.1', system.submission.smtpTlsPort));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What the scripts read: where SMTP submission listens (STARTTLS), the login, the certificate to trust, From and To. */
  const settingsFor = (to: string): Record<string, string> => ({
    POSTBUS_SMTP_HOST: '127.0.0.1',
    POSTBUS_SMTP_PORT: String(system.submission!.smtpPort),
    POSTBUS_PROJECT_ID: client.projectId,
    POSTBUS_API_KEY: client.apiKey,
    POSTBUS_SMTP_CAFILE: cafile,
    POSTBUS_FROM: `Docs Shop <shop@${DOMAIN}>`,
    POSTBUS_TO: to,
  });

  /** The one mail to `to` at the sink, parsed, and the message the log shows for it once sent. */
  async function arrivedTo(to: string) {
    const [summary] = await waitFor(
      async () => {
        const { messages } = await system.sink.client.search(`to:${to}`);
        return messages.length > 0 ? messages : undefined;
      },
      { timeoutMs: 30_000, what: `the mail to ${to} at the sink` },
    );
    const parsed = await simpleParser(Buffer.from(await system.sink.client.raw(summary!.ID)));
    const message = await waitFor(
      async () => {
        const listed = await projectCall(system, client, 'GET', `/messages?email=${encodeURIComponent(to)}`);
        const id = (listed.body?.data as Array<{ id: string }> | undefined)?.[0]?.id;
        if (!id) return undefined;
        const read = await projectCall(system, client, 'GET', `/messages/${id}`);
        return read.status === 200 && read.body.status === 'sent' ? (read.body as Record<string, unknown>) : undefined;
      },
      { timeoutMs: 30_000, what: `the message to ${to} sent in the message log` },
    );
    return { parsed, message };
  }

  /** What both scripts send: the page's receipt, as the app made it, and the control headers' options in the log. */
  async function expectReceipt(to: string, tool: string) {
    const { parsed, message } = await arrivedTo(to);
    expect(parsed.from?.value).toEqual([{ name: 'Docs Shop', address: `shop@${DOMAIN}` }]);
    expect(parsed.subject).toBe('Your receipt for order 4711');
    expect(parsed.html).toContain('<p>Thanks for your order <b>4711</b>.</p>');
    expect(parsed.text ?? '').toContain('Thanks for your order 4711.');
    const receipt = parsed.attachments.find((a) => a.filename === 'receipt-4711.pdf');
    expect(receipt?.contentType).toBe('application/pdf');
    expect(receipt?.content.equals(RECEIPT)).toBe(true);
    expect(parsed.headers.has('x-postbus-tags')).toBe(false);
    expect(parsed.headers.has('x-postbus-metadata')).toBe(false);
    expect(message).toMatchObject({ source: 'smtp', email: to, tags: ['receipt', tool], metadata: { order_id: '4711' } });
    return message;
  }

  it('the Python smtplib script runs with python3 and its mail arrives', async () => {
    const script = join(dir, 'send.py');
    writeFileSync(script, codeBlockOf('python', 'import smtplib'));
    const to = `smtplib-docs-${randomBytes(4).toString('hex')}@example.org`;
    const outcome = await run('python3', [script], settingsFor(to));
    expect(outcome).toMatchObject({ code: 0, stdout: 'queued\n' });
    await expectReceipt(to, 'python');
  }, 90_000);

  it('the Nodemailer script runs with node and its mail arrives with the message id of its 250', async () => {
    const script = join(dir, 'send.js');
    writeFileSync(script, codeBlockOf('js', "require('nodemailer')"));
    const to = `nodemailer-docs-${randomBytes(4).toString('hex')}@example.org`;
    // The script sits outside the repository: it finds nodemailer as an app finds its own dependencies.
    const outcome = await run(process.execPath, [script], { ...settingsFor(to), NODE_PATH: join(repoRoot, 'node_modules') });
    expect(outcome).toMatchObject({ code: 0, stdout: expect.stringMatching(/^250 2\.0\.0 msg_\S+ queued\n$/) });
    const id = /^250 2\.0\.0 (msg_\S+) queued/.exec(outcome.stdout)?.[1];
    const message = await expectReceipt(to, 'nodemailer');
    expect(message['id']).toBe(id);
  }, 90_000);
});
