/**
 * The inbound benchmark's remote MTAs, forked by inbound.bench.ts into a process of its own: nodemailer (pooled
 * SMTP transport, null sender, raw message) offering RFC 3464 delivery status notifications to the inbound MX,
 * each the Postfix fixture services/inbound/fixtures/postfix/failed-550-user-unknown.eml with the return path,
 * the recipient and the Message-ID of one of the run's real messages put in.
 *
 * Protocol (IPC): the argument is a JSON DsnSenderOptions; the child offers `warmup` DSNs to forged return paths
 * (taken, read and ignored: they bounce nothing), retrying while the MX answers 550 (it has not learnt the
 * return-path domain from the catalog yet), and answers {type: 'ready'}. Each {type: 'run', ...DsnRun} is then
 * offered and answered with {type: 'result', ...DsnRunResult}; {type: 'exit'} ends it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { repoRoot, sleep } from '@postbus/testing';
import { runBatch, runForked, sendToParent } from './direct-child';
import { paced } from './pacing';

export interface DsnSenderOptions {
  host: string;
  port: number;
  /** SMTP connections kept open to the MX (each carries one transaction at a time). */
  connections: number;
  /** The return-path domain, `pb-bounces.<sender domain>`: the warm-up's forged tokens are addressed there. */
  returnPathDomain: string;
  warmup: number;
}

/** One DSN: the message it bounces, as the sink received it. */
export interface DsnTarget {
  /** The message's envelope sender, `b.<hex>.<mac>@pb-bounces.<domain>`: the DSN's envelope recipient. */
  returnPath: string;
  /** The bounced recipient. */
  recipient: string;
  /** The message's Message-ID, without angle brackets. */
  messageId: string;
}

export interface DsnRun {
  targets: DsnTarget[];
  /** DSNs a second, evenly spaced (an open loop); null: a closed loop, one DSN per connection at a time. */
  rate: number | null;
}

/** One DSN offered: epoch ms when it was due (paced) or handed to the pool, answered, and the reply's code (0: no answer). */
export interface DsnOutcome {
  dueAt: number;
  sentAt: number;
  answeredAt: number;
  code: number;
  error?: string;
}

export interface DsnRunResult {
  outcomes: DsnOutcome[];
  /** CPU time of this process during the run, ms. */
  cpuMs: { user: number; system: number };
}

export type DsnSenderMessage = { type: 'ready' } | ({ type: 'result' } & DsnRunResult) | { type: 'error'; message: string };
type ParentMessage = ({ type: 'run' } & DsnRun) | { type: 'exit' };

const FIXTURE = join(repoRoot, 'services', 'inbound', 'fixtures', 'postfix', 'failed-550-user-unknown.eml');
const FIXTURE_RETURN_PATH = 'b.0a1b2c3d4e5f60718293a4b5c6d7e8f9.k7sx2mnpr4tqa3vd@pb-bounces.sender.test';
const FIXTURE_RECIPIENT = 'gone@dest.test';
const FIXTURE_MESSAGE_ID = 'msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9@sender.test';

/** The fixture with a target's return path, recipient and Message-ID in place of its own. */
export function dsnFor(template: string, target: DsnTarget): Buffer {
  return Buffer.from(
    template
      .split(FIXTURE_RETURN_PATH)
      .join(target.returnPath)
      .split(FIXTURE_RECIPIENT)
      .join(target.recipient)
      .split(FIXTURE_MESSAGE_ID)
      .join(target.messageId),
  );
}

const codeOf = (error: unknown): number => (error as { responseCode?: number }).responseCode ?? 0;

async function main(options: DsnSenderOptions): Promise<void> {
  const template = readFileSync(FIXTURE, 'utf8');
  for (const marker of [FIXTURE_RETURN_PATH, FIXTURE_RECIPIENT, FIXTURE_MESSAGE_ID])
    if (!template.includes(marker)) throw new Error(`${FIXTURE} no longer holds ${marker}`);
  const transport = nodemailer.createTransport({
    pool: true,
    host: options.host,
    port: options.port,
    secure: false,
    ignoreTLS: true,
    maxConnections: options.connections,
    maxMessages: Infinity,
  });
  const offer = (target: DsnTarget) =>
    transport.sendMail({ envelope: { from: '', to: [target.returnPath] }, raw: dsnFor(template, target) });

  // Warm-up: tokens that do not verify, so nothing bounces; the first waits for the MX to know the domain.
  const forged = (n: number): DsnTarget => ({
    returnPath: `b.${n.toString(16).padStart(32, '0')}.${'a'.repeat(20)}@${options.returnPathDomain}`,
    recipient: `warmup-${n}@rcpt.bench.example`,
    messageId: `msg_${n.toString(16).padStart(32, '0')}@bench.example`,
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await offer(forged(0));
      break;
    } catch (error) {
      if (codeOf(error) !== 550 || Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
  const warm = await runBatch(options.warmup, options.connections, (n) => offer(forged(n + 1)).then(() => undefined));
  if (warm.failed > 0) throw new Error(`${warm.failed} of ${options.warmup} warm-up DSNs failed: ${warm.firstError}`);

  const inbox: ParentMessage[] = [];
  let wake: (() => void) | undefined;
  process.on('message', (message: ParentMessage) => {
    inbox.push(message);
    wake?.();
  });
  await sendToParent<DsnSenderMessage>({ type: 'ready' });
  for (;;) {
    const message = inbox.shift() ?? (await new Promise<void>((resolve) => (wake = resolve)).then(() => inbox.shift()));
    if (!message) continue;
    if (message.type === 'exit') break;
    const one = async (n: number, dueAt: number): Promise<DsnOutcome> => {
      const sentAt = Date.now();
      try {
        await offer(message.targets[n]!);
        return { dueAt, sentAt, answeredAt: Date.now(), code: 250 };
      } catch (error) {
        return { dueAt, sentAt, answeredAt: Date.now(), code: codeOf(error), error: (error as Error).message.slice(0, 300) };
      }
    };
    const cpuBefore = process.cpuUsage();
    let outcomes: DsnOutcome[];
    if (message.rate === null) {
      outcomes = new Array<DsnOutcome>(message.targets.length);
      await runBatch(message.targets.length, options.connections, async (n) => {
        outcomes[n] = await one(n, Date.now());
      });
    } else {
      outcomes = await paced(message.rate, message.targets.length, one);
    }
    const cpu = process.cpuUsage(cpuBefore);
    await sendToParent<DsnSenderMessage>({
      type: 'result',
      outcomes,
      cpuMs: { user: Math.round(cpu.user / 1000), system: Math.round(cpu.system / 1000) },
    });
  }
  transport.close();
}

if (require.main === module) runForked<DsnSenderOptions>('dsn-sender.js', 'inbound.bench.js', main);
