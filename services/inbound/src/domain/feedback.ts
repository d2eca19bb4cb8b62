import type { ReturnPathClaim, ReturnPathTokens } from '@postbus/crypto';
import { normaliseEmail, type FeedbackBounceEvent, type FeedbackComplaintEvent, type FeedbackUnsubscribeEvent } from '@postbus/contracts';
import { readInboundReport, type InboundReport, type OriginalMail } from './inbound-report';
import { claimOfAddress } from './token-presence';

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

/** A copy's own token makes the feedback that copy's (see CopyPosition). */
const copyOf = (copy: number | undefined): { copy?: number } => (copy !== undefined ? { copy } : {});

const clip = (value: string | undefined, max: number): string | undefined => (value === undefined ? undefined : value.slice(0, max));

/**
 * Turns a mail to a return-path address into feedback about one of our messages. The message is
 * named by a signed token only: the address the mail was sent to, or the original's return path
 * quoted in the report; a complaint may also prove it by the List-Unsubscribe mailto address of the
 * original's headers, as feedback loops that rewrite the envelope keep those. A token that does
 * not verify names nothing, so a forged report changes nothing. A Message-ID is never enough:
 * every recipient, cc and bcc of a mail sees it.
 */
export async function feedbackOf(
  mail: ReceivedMail,
  tokens: ReturnPathTokens,
  readReport: ReadReport = readInboundReport,
): Promise<Verdict> {
  const claims = mail.rcptTo.map((address) => claimOfAddress(tokens, address)).filter((c): c is ReturnPathClaim => c !== null);
  const unsubscribes = new Map(claims.filter((c) => c.purpose === 'unsubscribe').map((c) => [`${c.messageId}:${c.copy ?? ''}`, c]));
  if (unsubscribes.size > 0)
    return {
      feedback: [...unsubscribes.values()].map(({ messageId, copy }) => ({
        type: 'feedback.unsubscribe',
        data: { messageId, ...copyOf(copy), at: mail.receivedAt },
      })),
    };

  const report = await readReport(mail.raw);
  const claimOf = (address: string | undefined, purpose: ReturnPathClaim['purpose']): ReturnPathClaim | undefined => {
    const claim = address === undefined ? null : claimOfAddress(tokens, address);
    return claim?.purpose === purpose ? claim : undefined;
  };
  const original: OriginalMail = report.kind === 'delivery_status' || report.kind === 'complaint' ? report.original : {};
  const bounceClaim = claims.find((c) => c.purpose === 'bounce') ?? claimOf(original.returnPath, 'bounce');
  const at = mail.receivedAt;

  switch (report.kind) {
    case 'auto_reply':
      return { feedback: [], ignored: 'an auto-reply', report: report.kind };
    case 'unclassified':
      return { feedback: [], ignored: report.reason, report: report.kind };
    case 'complaint': {
      const claim = bounceClaim ?? claimOf(original.unsubscribeAddress, 'unsubscribe');
      if (!claim) return { feedback: [], ignored: 'a complaint without a valid return-path token', report: report.kind };
      const recipient = report.recipient !== undefined ? clip(normaliseEmail(report.recipient), 320) : undefined;
      return {
        feedback: [
          {
            type: 'feedback.complaint',
            data: {
              messageId: claim.messageId,
              ...copyOf(claim.copy),
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
      if (!bounceClaim) return { feedback: [], ignored: 'a delivery report without a valid return-path token', report: report.kind };
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
              ...copyOf(bounceClaim.copy),
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
