import type { ReturnPathClaim, ReturnPathTokens } from '@postbus/crypto';
import { normaliseEmail, type FeedbackBounceEvent, type FeedbackComplaintEvent, type FeedbackUnsubscribeEvent } from '@postbus/contracts';
import { readInboundReport, type InboundReport } from './inbound-report';

export type Feedback =
  | { type: 'feedback.bounce'; data: FeedbackBounceEvent }
  | { type: 'feedback.complaint'; data: FeedbackComplaintEvent }
  | { type: 'feedback.unsubscribe'; data: FeedbackUnsubscribeEvent };

/** What a mail to a return path comes to: the feedback it carries, or why it carries none. */
export interface Verdict {
  feedback: Feedback[];
  /** Why the mail changes nothing (an auto-reply, a forged token, a report that says nothing). */
  ignored?: string;
  /** The reader's verdict, for the record. */
  report?: InboundReport['kind'];
}

/**
 * What the MX received and what it came to, without the mail itself or any address: when, the
 * reader's verdict, why nothing came of it, and which message it was about. Append-only.
 */
export interface ReceivedRecord {
  receivedAt: Date;
  report?: string;
  ignored?: string;
  messageIds: string[];
  feedback: string[];
  truncated: boolean;
}

/**
 * Reads what a mail says. In the service, on a worker thread within a time budget (parse/), so
 * that no mail holds the event loop the MX and the consumer share; readInboundReport by default.
 */
export type ReadReport = (raw: Buffer) => Promise<InboundReport>;

export interface ReceivedMail {
  raw: Buffer;
  rcptTo: string[];
  receivedAt: string;
}

const localPartOf = (address: string): string => address.slice(0, Math.max(0, address.lastIndexOf('@')));

/** Our own Message-IDs are `<msg_<32 hex>@<sender domain>>`. */
const ownMessageId = (messageId: string | undefined): string | undefined => messageId?.match(/^(msg_[0-9a-f]{32})@/)?.[1];

const clip = (value: string | undefined, max: number): string | undefined => (value === undefined ? undefined : value.slice(0, max));

/**
 * Turns a mail to a return-path address into feedback about one of our messages. The message is
 * named by the signed token of the address the mail was sent to, or of the original's return path
 * quoted in the report; a token that does not verify names nothing, so a forged bounce changes
 * nothing. Only a complaint may be matched by the original's Message-ID alone, as feedback loops
 * often strip the return path; it is still one of our ids, and a complaint only ever suppresses the
 * address it was sent to.
 */
export async function feedbackOf(
  mail: ReceivedMail,
  tokens: ReturnPathTokens,
  readReport: ReadReport = readInboundReport,
): Promise<Verdict> {
  const claims = mail.rcptTo.map((address) => tokens.verify(localPartOf(address))).filter((c): c is ReturnPathClaim => c !== null);
  const unsubscribes = [...new Set(claims.filter((c) => c.purpose === 'unsubscribe').map((c) => c.messageId))];
  if (unsubscribes.length > 0)
    return { feedback: unsubscribes.map((messageId) => ({ type: 'feedback.unsubscribe', data: { messageId, at: mail.receivedAt } })) };

  const report = await readReport(mail.raw);
  const tokenOfOriginal = report.kind === 'delivery_status' || report.kind === 'complaint' ? report.original.returnPath : undefined;
  const bounceClaim =
    claims.find((c) => c.purpose === 'bounce') ??
    (tokenOfOriginal ? (tokens.verify(localPartOf(tokenOfOriginal)) ?? undefined) : undefined);
  const at = mail.receivedAt;

  switch (report.kind) {
    case 'auto_reply':
      return { feedback: [], ignored: 'an auto-reply', report: report.kind };
    case 'unclassified':
      return { feedback: [], ignored: report.reason, report: report.kind };
    case 'complaint': {
      const messageId = bounceClaim?.purpose === 'bounce' ? bounceClaim.messageId : ownMessageId(report.original.messageId);
      if (!messageId) return { feedback: [], ignored: 'a complaint that names none of our messages', report: report.kind };
      const recipient = report.recipient !== undefined ? clip(normaliseEmail(report.recipient), 320) : undefined;
      return {
        feedback: [
          {
            type: 'feedback.complaint',
            data: {
              messageId,
              feedbackType: report.feedbackType.slice(0, 64),
              ...(report.userAgent ? { userAgent: report.userAgent.slice(0, 255) } : {}),
              ...(recipient ? { recipient } : {}),
              at,
            },
          },
        ],
        report: report.kind,
      };
    }
    case 'delivery_status': {
      if (bounceClaim?.purpose !== 'bounce')
        return { feedback: [], ignored: 'a delivery report without a valid return-path token', report: report.kind };
      const bounces = report.outcomes.filter((o) => o.bounce !== undefined);
      if (bounces.length === 0) return { feedback: [], ignored: 'a delivery report of deliveries, not bounces', report: report.kind };
      return {
        feedback: bounces.map((outcome) => {
          const reportingMta = clip(report.reportingMta, 255);
          const remoteMta = clip(outcome.remoteMta, 255);
          const diagnosticCode = clip(outcome.diagnosticCode, 1000);
          const recipient = outcome.recipient !== undefined ? clip(normaliseEmail(outcome.recipient), 320) : undefined;
          return {
            type: 'feedback.bounce' as const,
            data: {
              messageId: bounceClaim.messageId,
              class: outcome.bounce!,
              action: outcome.action,
              format: report.format,
              ...(outcome.status ? { status: outcome.status } : {}),
              ...(diagnosticCode ? { diagnosticCode } : {}),
              ...(reportingMta ? { reportingMta } : {}),
              ...(remoteMta ? { remoteMta } : {}),
              ...(recipient ? { recipient } : {}),
              at,
            },
          };
        }),
        report: report.kind,
      };
    }
  }
}

/** What is kept of a mail once read: the verdict, the messages its feedback is about (each once) and the feedback's types; never the mail. */
export const receivedRecordOf = (verdict: Verdict, mail: { receivedAt: string; truncated: boolean }): ReceivedRecord => ({
  receivedAt: new Date(mail.receivedAt),
  ...(verdict.report ? { report: verdict.report } : {}),
  ...(verdict.ignored ? { ignored: verdict.ignored } : {}),
  messageIds: [...new Set(verdict.feedback.map((f) => f.data.messageId))],
  feedback: verdict.feedback.map((f) => f.type),
  truncated: mail.truncated,
});
