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
import { measure, readyThenGo, runBatch, runForked, sendToParent, type BatchFigures } from './direct-child';

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

/** Messages answered 250 a second, from the first sendMail call to the last resolve; latencies from the sendMail call to its promise resolving. */
export type DirectResult = BatchFigures;

export type DirectMessage = { type: 'ready' } | ({ type: 'result' } & DirectResult) | { type: 'error'; message: string };

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/** An HS256 token of the kind Postbus puts in its unsubscribe links (jose in Postbus; the same work by hand here). */
function unsubscribeToken(secret: Buffer, messageId: string): string {
  const head = `${base64url('{"alg":"HS256"}')}.${base64url(JSON.stringify({ a: 'unsubscribe', m: messageId, p: 'bench' }))}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

async function main(options: DirectOptions): Promise<void> {
  const send = (message: DirectMessage) => sendToParent(message);
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
  const batch = (tag: string, count: number) => runBatch(count, options.concurrency, (n) => sendOne(tag, n));

  const warm = await batch(`${options.tag}-warmup`, options.warmup);
  if (warm.failed > 0) throw new Error(`${warm.failed} of ${options.warmup} warm-up messages failed: ${warm.firstError}`);
  await readyThenGo();
  const { figures } = await measure(() => batch(options.tag, options.count));
  transport.close();
  await send({ type: 'result', ...figures });
}

if (require.main === module) runForked<DirectOptions>('direct-sender.js', 'mailer.bench.js', main);
