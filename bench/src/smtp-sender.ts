/**
 * The SMTP bench's app, forked by smtp.bench.ts into a process of its own: Nodemailer's pooled SMTP transport
 * (`maxConnections` connections, STARTTLS or implicit TLS, AUTH PLAIN with the project id and an API key, 100
 * messages a connection as Nodemailer's pool sends by default) submitting content mails to SMTP submission, each
 * the bench's content mail (contentMailOf) with `X-Postbus-Track: none`.
 *
 * Protocol (IPC): the argument is a JSON SmtpSenderOptions; the child sends `warmup` messages (failing on any
 * refusal) and answers {type: 'ready'}. Each {type: 'run', tag, count} is then sent, `connections` messages in
 * flight, and answered with {type: 'result', ...SmtpRunResult}; {type: 'exit'} ends it.
 */
import nodemailer from 'nodemailer';
import { runBatch, runForked, sendToParent } from './direct-child';
import { contentMailOf } from './mail-template';
import type { Trigger } from './triggers';

export interface SmtpSenderOptions {
  host: string;
  port: number;
  /** STARTTLS on the submission port (587), or implicit TLS on the other (465). */
  tls: 'starttls' | 'implicit';
  /** The login: the project id and an API key of its client. */
  user: string;
  pass: string;
  /** Connections of the pool, and messages in flight. */
  connections: number;
  /** Messages a connection carries before the pool opens a new one (Nodemailer's default: 100). */
  messagesPerConnection: number;
  warmup: number;
  warmupTag: string;
}

export interface SmtpRun {
  tag: string;
  count: number;
}

export interface SmtpRunResult {
  /**
   * One per message, in order, as the HTTP load generator reports its sends: `status` is the SMTP reply's code (0:
   * no reply), `messageId` the one the 250 names.
   */
  outcomes: Trigger[];
  /** CPU time of this process during the run, ms. */
  cpuMs: { user: number; system: number };
}

export type SmtpSenderMessage = { type: 'ready' } | ({ type: 'result' } & SmtpRunResult) | { type: 'error'; message: string };
type ParentMessage = ({ type: 'run' } & SmtpRun) | { type: 'exit' };

/** The message id a 250 of SMTP submission names: `250 2.0.0 msg_… queued`. */
export const messageIdOfReply = (response: string): string | null => /^250 2\.0\.0 (msg_\S+) queued/.exec(response)?.[1] ?? null;

async function main(options: SmtpSenderOptions): Promise<void> {
  const transport = nodemailer.createTransport({
    pool: true,
    host: options.host,
    port: options.port,
    secure: options.tls === 'implicit',
    requireTLS: options.tls === 'starttls',
    // Development's self-signed certificate.
    tls: { rejectUnauthorized: false },
    auth: { user: options.user, pass: options.pass },
    maxConnections: options.connections,
    maxMessages: options.messagesPerConnection,
  });
  const submit = async (tag: string, n: number): Promise<Trigger> => {
    const mail = contentMailOf(tag, n);
    const sentAt = Date.now();
    try {
      const info = (await transport.sendMail({ ...mail, headers: { 'X-Postbus-Track': 'none' } })) as { response: string };
      const messageId = messageIdOfReply(info.response);
      return {
        n,
        sentAt,
        dueAt: sentAt,
        answeredAt: Date.now(),
        status: Number(info.response.slice(0, 3)),
        messageId,
        ...(messageId ? {} : { error: `no message id in "${info.response.slice(0, 300)}"` }),
      };
    } catch (error) {
      const { responseCode, message } = error as { responseCode?: number; message?: string };
      return {
        n,
        sentAt,
        dueAt: sentAt,
        answeredAt: Date.now(),
        status: responseCode ?? 0,
        messageId: null,
        error: (message ?? '').slice(0, 300),
      };
    }
  };
  const run = async (tag: string, count: number): Promise<Trigger[]> => {
    const outcomes = new Array<Trigger>(count);
    await runBatch(count, options.connections, async (n) => {
      outcomes[n] = await submit(tag, n);
    });
    return outcomes;
  };

  const warm = await run(options.warmupTag, options.warmup);
  const refused = warm.filter((o) => o.messageId === null);
  if (refused.length > 0)
    throw new Error(`${refused.length} of ${options.warmup} warm-up messages refused: ${refused[0]!.status} ${refused[0]!.error}`);

  const inbox: ParentMessage[] = [];
  let wake: (() => void) | undefined;
  process.on('message', (message: ParentMessage) => {
    inbox.push(message);
    wake?.();
  });
  await sendToParent<SmtpSenderMessage>({ type: 'ready' });
  for (;;) {
    const message = inbox.shift() ?? (await new Promise<void>((resolve) => (wake = resolve)).then(() => inbox.shift()));
    if (!message) continue;
    if (message.type === 'exit') break;
    const cpuBefore = process.cpuUsage();
    const outcomes = await run(message.tag, message.count);
    const cpu = process.cpuUsage(cpuBefore);
    await sendToParent<SmtpSenderMessage>({
      type: 'result',
      outcomes,
      cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
    });
  }
  transport.close();
}

if (require.main === module) runForked<SmtpSenderOptions>('smtp-sender.js', 'smtp.bench.js', main);
