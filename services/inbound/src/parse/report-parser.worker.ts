import { budgetedTask, type BudgetedTask } from '@postbus/smtp';
import { readInboundReport } from '../domain/inbound-report';

/** One mail for a worker thread of ReportParser's pool. */
export type ParseTask = BudgetedTask<Uint8Array>;

/** A report and a notice read once as the thread starts, so that a mail's budget is not spent compiling the reader. */
const warmUp = Promise.all(
  [
    'From: MAILER-DAEMON@relay.example\r\nSubject: Undelivered Mail\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n' +
      '--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; relay.example\r\n\r\nFinal-Recipient: rfc822; a@b.example\r\nAction: failed\r\nStatus: 5.1.1\r\n' +
      '--b\r\nContent-Type: message/rfc822\r\n\r\nMessage-ID: <a@b.example>\r\n\r\nx\r\n--b--\r\n',
    'From: MAILER-DAEMON@relay.example\r\nSubject: failure notice\r\n\r\n<a@b.example>: 550 5.1.1 user unknown\r\n--- Below this line is a copy of the message.\r\n',
  ].map((raw) => readInboundReport(Buffer.from(raw))),
);

/** Reads one mail; the pool's caller stops the thread when it takes longer than its budget. */
export default budgetedTask((raw: Uint8Array) => readInboundReport(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)), warmUp);
