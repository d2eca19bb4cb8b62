import { simpleParser } from 'mailparser';
import { budgetedTask, type BudgetedTask } from '@postbus/smtp';
import { planSubmission, prepareSend } from '../domain/content-send';
import type { ReadSubmission } from '../domain/ports';
import { mimeProblem, PARSER_OPTIONS, submittedMailOf } from './submitted-mail-of';

/** One submitted message for a worker thread of SubmissionReader's pool. */
export interface ReadInput {
  raw: Uint8Array;
  rcptTo: string[];
}
export type ReadTask = BudgetedTask<ReadInput>;

/**
 * Reads one message into its content sends, serialized: the parse (mailparser), the mapping
 * (domain/content-send.ts), the idempotency digest and the JSON all happen here, off the event
 * loop of the SMTP servers, since each grows with the message (10 MB of it at most).
 */
export async function readSubmission({ raw, rcptTo }: ReadInput): Promise<ReadSubmission> {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  let parsed;
  try {
    parsed = await simpleParser(bytes, PARSER_OPTIONS);
  } catch (error) {
    return { refusal: { code: 550, message: `5.6.0 Malformed MIME: ${(error as Error).message}`.slice(0, 400) } };
  }
  const problem = mimeProblem(parsed, bytes);
  if (problem) return { refusal: { code: 550, message: `5.6.0 ${problem}`.slice(0, 400) } };
  const envelope = { rcptTo };
  const plan = planSubmission(submittedMailOf(parsed), envelope);
  return 'refusal' in plan ? plan : { sends: plan.sends.map(prepareSend) };
}

/** A message read once as the thread starts, so that no message's budget is spent compiling the parser. */
const warmUp = readSubmission({
  raw: Buffer.from(
    'From: A <a@warm.example>\r\nTo: b@warm.example\r\nSubject: warm-up\r\nX-Postbus-Tags: warm\r\nMIME-Version: 1.0\r\n' +
      'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>hi</p>\r\n' +
      '--b\r\nContent-Type: application/pdf; name="a.pdf"\r\nContent-Disposition: attachment; filename="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b--\r\n',
  ),
  rcptTo: ['b@warm.example'],
});

/** Reads one message; the pool's caller stops the thread when it takes longer than its budget. */
export default budgetedTask((task: ReadInput) => readSubmission(task), warmUp);
