/**
 * The mailer benchmark's baseline, forked by mailer.bench.ts into a process of its own: nodemailer (pooled SMTP
 * transport) sending DKIM-signed messages (its built-in `dkim` option, RSA-2048) straight to the SMTP sink, each
 * rendered from the benchmark's template with Postbus's renderer and carrying the same headers as Postbus's.
 *
 * Protocol (IPC): the argument is a JSON DirectOptions; the child generates its key, sends `warmup` messages and
 * answers {type: 'ready'}; on {type: 'go'} it sends `count` messages, `concurrency` sendMail calls in flight, and
 * answers {type: 'result', ...DirectResult}, then exits.
 */
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { compile } from '@postbus/templates';
import { BENCH_TEMPLATE, dataOf, FROM_ADDRESS, FROM_NAME, SENDER_DOMAIN, userOf } from './mail-template';
import { latencyOf, perSecond, type Latency } from './stats';

export interface DirectOptions {
  smtpUrl: string;
  /** Messages sent before the measured ones (connections opened, code warmed up). */
  warmup: number;
  count: number;
  concurrency: number;
  maxConnections: number;
  /** Tags recipients and Message-IDs, so the run's messages are recognisable in the sink. */
  tag: string;
  /**
   * How the key is given to nodemailer: `keyobject` (the default), parsed once as Postbus holds its keys; `pem`, the
   * PEM text, which node:crypto parses again at every signature (≈ 0.9 ms against ≈ 0.3 ms a signature here).
   */
  key: 'keyobject' | 'pem';
  /** The origin of the one-click unsubscribe links (Postbus's PUBLIC_BASE_URL). */
  publicBaseUrl: string;
}

export interface DirectResult {
  sent: number;
  failed: number;
  firstError: string | null;
  durationMs: number;
  /** Messages answered 250 a second, from the first sendMail call to the last resolve. */
  rate: number;
  /** Per message: sendMail call to its promise resolving. */
  latencyMs: Latency;
  /** CPU time of this process during the measured run, in ms. */
  cpuMs: { user: number; system: number };
}

export type DirectMessage = { type: 'ready' } | ({ type: 'result' } & DirectResult) | { type: 'error'; message: string };

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/** An HS256 token of the kind Postbus puts in its unsubscribe links (jose in Postbus; the same work by hand here). */
function unsubscribeToken(secret: Buffer, messageId: string): string {
  const head = `${base64url('{"alg":"HS256"}')}.${base64url(JSON.stringify({ a: 'unsubscribe', m: messageId, p: 'bench' }))}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

async function main(options: DirectOptions): Promise<void> {
  const send = (message: DirectMessage) =>
    new Promise<void>((resolve, reject) => process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const url = new URL(options.smtpUrl);
  const transport = nodemailer.createTransport({
    pool: true,
    host: url.hostname,
    port: Number(url.port || 25),
    secure: false,
    maxConnections: options.maxConnections,
    maxMessages: Infinity,
    dkim: {
      domainName: SENDER_DOMAIN,
      keySelector: 'bench',
      privateKey: options.key === 'pem' ? privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() : privateKey,
    },
  });
  const render = compile(BENCH_TEMPLATE);
  const secret = randomBytes(32);

  const sendOne = async (tag: string, n: number): Promise<void> => {
    const user = userOf(tag, n);
    const rendered = render({ user, data: dataOf(n) });
    const messageId = `${tag}_${n}`;
    await transport.sendMail({
      from: { name: FROM_NAME, address: FROM_ADDRESS },
      to: user.email,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      messageId: `<${messageId}@${SENDER_DOMAIN}>`,
      date: new Date(),
      headers: {
        'List-Unsubscribe': `<${options.publicBaseUrl}/t/u/${unsubscribeToken(secret, messageId)}>, <mailto:unsubscribe@${SENDER_DOMAIN}?subject=unsubscribe%20${messageId}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'X-Postbus-Message-Id': messageId,
      },
    });
  };

  /** Sends `count` messages, `concurrency` in flight; the latencies of those that were answered 250. */
  const batch = async (tag: string, count: number) => {
    const latencies: number[] = [];
    let next = 0;
    let failed = 0;
    let firstError: string | null = null;
    const worker = async () => {
      while (next < count) {
        const n = next++;
        const start = performance.now();
        try {
          await sendOne(tag, n);
          latencies.push(performance.now() - start);
        } catch (error) {
          failed++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, count) }, worker));
    return { latencies, failed, firstError };
  };

  const warm = await batch(`${options.tag}-warmup`, options.warmup);
  if (warm.failed > 0) throw new Error(`${warm.failed} of ${options.warmup} warm-up messages failed: ${warm.firstError}`);
  const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
  await send({ type: 'ready' });
  await go;

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const run = await batch(options.tag, options.count);
  const durationMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  transport.close();
  await send({
    type: 'result',
    sent: run.latencies.length,
    failed: run.failed,
    firstError: run.firstError,
    durationMs: Math.round(durationMs),
    rate: perSecond(run.latencies.length, durationMs),
    latencyMs: latencyOf(run.latencies),
    cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
  });
}

if (require.main === module) {
  if (!process.send) {
    console.error('direct-sender.js is forked by mailer.bench.js (it needs an IPC channel)');
    process.exit(2);
  }
  main(JSON.parse(process.argv[2] ?? '{}') as DirectOptions).then(
    () => process.disconnect(),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.send!({ type: 'error', message } satisfies DirectMessage, () => process.exit(1));
    },
  );
}
