import { simpleParser, type Attachment, type HeaderValue, type ParsedMail } from 'mailparser';
import { classifyDeliveryStatus, classifyNotice, smtpCodes, type BounceClass } from './bounce-class';
import { mimeInput } from './mime-input';
import { noticeRecipient, noticeText } from './notice-text';
import { bareAddress, readFieldBlocks, untyped, type FieldBlock } from './report-fields';

/** What a report says about the mail it is about, to find that mail when the return path does not. */
export interface OriginalMail {
  /** The original's Message-ID, without angle brackets. */
  messageId?: string;
  /** The original's envelope sender (its Return-Path, or what the report names as it). */
  returnPath?: string;
  /** The mailto address of the original's List-Unsubscribe header, as its copy in the report quotes it. */
  unsubscribeAddress?: string;
}

/** One recipient of an RFC 3464 report, or the one a plain-text notice names. */
export interface RecipientOutcome {
  recipient?: string;
  /** RFC 3464 Action: failed, delayed, delivered, relayed, expanded; "failed" for a notice. */
  action: string;
  /** The RFC 3463 status (e.g. 5.1.1): the report's Status, or the code a notice quotes. */
  status?: string;
  /** What the remote server answered, e.g. "smtp; 550 5.1.1 <a@b>: User unknown". */
  diagnosticCode?: string;
  remoteMta?: string;
  /** Undefined for outcomes that are not bounces (delivered, relayed, expanded). */
  bounce?: BounceClass;
}

export type InboundReport =
  | { kind: 'delivery_status'; format: 'rfc3464' | 'notice'; reportingMta?: string; outcomes: RecipientOutcome[]; original: OriginalMail }
  | { kind: 'complaint'; feedbackType: string; userAgent?: string; recipient?: string; original: OriginalMail }
  | { kind: 'auto_reply' }
  | { kind: 'unclassified'; reason: string; original: OriginalMail };

/** The raw parts a report is made of; mailparser keeps the machine-readable ones as attachments. */
const parseOptions = {
  keepDeliveryStatus: true,
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
} as const;

const reportType = (mail: ParsedMail): string | undefined => {
  const contentType = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (contentType?.value?.toLowerCase() !== 'multipart/report') return undefined;
  return contentType.params?.['report-type']?.toLowerCase();
};

const partOf = (mail: ParsedMail, ...types: string[]): Attachment | undefined =>
  mail.attachments.find((a) => types.includes(String(a.contentType ?? '').toLowerCase())); // malformed parts have none

const textOf = (value: HeaderValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** An address header as mailparser gives it: parsed ({ value: [{ address }] }) or a plain string. */
const addressOf = (value: HeaderValue | undefined): string | undefined =>
  typeof value === 'string' ? value : (value as { value?: Array<{ address?: string }> } | undefined)?.value?.[0]?.address;

const withoutBrackets = (id: string | undefined): string | undefined => id?.trim().replace(/^<|>$/g, '') || undefined;

/** The address of a List-Unsubscribe header's mailto URL (linear: the address is a bounded run after a literal). */
const mailtoOf = (header: string | undefined): string | undefined => header?.match(/<mailto:([^>?\s]{1,320})/i)?.[1];

/** The returned mail's Message-ID and envelope sender, from its copy or its headers in the report. */
async function originalOf(mail: ParsedMail, raw: Buffer, fields?: FieldBlock): Promise<OriginalMail> {
  const copy = partOf(mail, 'message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers');
  const original: OriginalMail = {};
  if (copy) {
    const returned = await simpleParser(mimeInput(copy.content), parseOptions);
    const messageId = withoutBrackets(returned.messageId);
    const returnPath = bareAddress(addressOf(returned.headers.get('return-path')));
    if (messageId) original.messageId = messageId;
    if (returnPath) original.returnPath = returnPath;
    const unsubscribeAddress = mailtoOf(returned.headerLines.find((h) => h.key === 'list-unsubscribe')?.line);
    if (unsubscribeAddress) original.unsubscribeAddress = unsubscribeAddress;
  }
  const namedSender = bareAddress(untyped(fields?.get('original-mail-from') ?? fields?.get('x-postfix-sender')));
  if (!original.returnPath && namedSender) original.returnPath = namedSender;
  if (!original.messageId) {
    // Notices that quote the returned mail as text (qmail, some providers), and copies attached
    // inline, which mailparser merges into the text without their headers, still carry its
    // Message-ID in the raw mail: the first one that is not the report's own. (Linear: a match
    // starts only at a line's start, and its runs end with the line.)
    const own = withoutBrackets(mail.messageId);
    const quoted = [...raw.toString('latin1').matchAll(/^Message-ID:[ \t]*<([^>\s]+)>/gim)].map((m) => m[1]).find((id) => id !== own);
    if (quoted) original.messageId = quoted;
  }
  if (!original.unsubscribeAddress) {
    // The same for its List-Unsubscribe header, folded lines and all (linear: a continuation starts with a line break and white space).
    const quoted = [...raw.toString('latin1').matchAll(/^List-Unsubscribe:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/gim)]
      .map((m) => mailtoOf(m[1]))
      .find((address) => address !== undefined);
    if (quoted) original.unsubscribeAddress = quoted;
  }
  return original;
}

async function deliveryStatus(mail: ParsedMail, raw: Buffer): Promise<InboundReport> {
  const part = partOf(mail, 'message/delivery-status', 'message/global-delivery-status');
  if (!part) return notice(mail, raw); // a report that lost its machine-readable part is read as a notice
  const [perMessage, ...perRecipient] = readFieldBlocks(part.content.toString('utf8'));
  const outcomes = perRecipient
    .filter((block) => block.has('action'))
    .map((block): RecipientOutcome => {
      const action = block.get('action')!.toLowerCase();
      const status = block.get('status')?.match(/^\d\.\d{1,3}\.\d{1,3}/)?.[0];
      const diagnosticCode = block.get('diagnostic-code');
      const bounce = classifyDeliveryStatus(action, status, untyped(diagnosticCode));
      const recipient = bareAddress(untyped(block.get('final-recipient') ?? block.get('original-recipient')));
      const remoteMta = untyped(block.get('remote-mta'));
      return {
        action,
        ...(recipient ? { recipient } : {}),
        ...(status ? { status } : {}),
        ...(diagnosticCode ? { diagnosticCode } : {}),
        ...(remoteMta ? { remoteMta } : {}),
        ...(bounce ? { bounce } : {}),
      };
    });
  if (outcomes.length === 0)
    return { kind: 'unclassified', reason: 'a delivery report without recipients', original: await originalOf(mail, raw) };
  const reportingMta = untyped(perMessage?.get('reporting-mta'));
  return {
    kind: 'delivery_status',
    format: 'rfc3464',
    ...(reportingMta ? { reportingMta } : {}),
    outcomes,
    original: await originalOf(mail, raw, perMessage),
  };
}

async function complaint(mail: ParsedMail, raw: Buffer): Promise<InboundReport> {
  const part = partOf(mail, 'message/feedback-report');
  if (!part)
    return {
      kind: 'unclassified',
      reason: 'a feedback report without its message/feedback-report part',
      original: await originalOf(mail, raw),
    };
  const [fields] = readFieldBlocks(part.content.toString('utf8'));
  const userAgent = fields?.get('user-agent');
  const recipient = bareAddress(fields?.get('original-rcpt-to'));
  return {
    kind: 'complaint',
    feedbackType: fields?.get('feedback-type')?.toLowerCase() ?? 'abuse',
    ...(userAgent ? { userAgent } : {}),
    ...(recipient ? { recipient } : {}),
    original: await originalOf(mail, raw, fields),
  };
}

const bounceSubject =
  /undeliver|undelivered|delivery (status notification|failure|has failed|failed|incomplete)|returned mail|returning message|failure notice|could not be delivered|not delivered|unzustellbar|non remis|no entregado/i;

const fromMailerDaemon = (mail: ParsedMail): boolean =>
  (mail.from?.value ?? []).some((a) => /^(mailer-daemon|postmaster)@/i.test(a.address ?? ''));

/** A bounce without RFC 3464's machine-readable part: classified by the rules in bounce-class. */
async function notice(mail: ParsedMail, raw: Buffer): Promise<InboundReport> {
  const text = noticeText(mail.text ?? '');
  const classified = classifyNotice(text);
  const original = await originalOf(mail, raw);
  if (!classified) return { kind: 'unclassified', reason: 'a bounce notice that names no reply code or known cause', original };
  const recipient = bareAddress(noticeRecipient(text));
  const status = classified.enhanced ?? (classified.reply ? `${String(classified.reply)[0]}.0.0` : undefined);
  const diagnosticLine = text
    .split(/\r?\n/)
    .find((line) => smtpCodes(line).reply !== undefined)
    ?.trim();
  return {
    kind: 'delivery_status',
    format: 'notice',
    outcomes: [
      {
        action: 'failed',
        bounce: classified.class,
        ...(recipient ? { recipient } : {}),
        ...(status ? { status } : {}),
        ...(diagnosticLine ? { diagnosticCode: `smtp; ${diagnosticLine}` } : {}),
      },
    ],
    original,
  };
}

/** Auto-replies (RFC 3834 and the common non-standard markers): out-of-office, vacation, ticket receipts. */
function isAutoReply(mail: ParsedMail): boolean {
  const header = (name: string) => textOf(mail.headers.get(name))?.toLowerCase();
  const autoSubmitted = header('auto-submitted');
  if (autoSubmitted !== undefined && autoSubmitted !== 'no') return true;
  if (mail.headers.has('x-autoreply') || mail.headers.has('x-autorespond') || mail.headers.has('x-autoreply-from')) return true;
  if (header('precedence') === 'auto_reply' || header('x-auto-response-suppress') !== undefined) return true;
  return /^(auto(matic)?[ -]?reply|out of (the )?office|abwesenheit|r[ée]ponse automatique|automatische antwort)\b/i.test(
    mail.subject ?? '',
  );
}

/**
 * What a mail to a return-path address says. Reports come first: DSNs are themselves
 * `Auto-Submitted`, so the auto-reply test only applies to what is not a report.
 */
export async function readInboundReport(raw: Buffer): Promise<InboundReport> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(mimeInput(raw), parseOptions);
  } catch (error) {
    return { kind: 'unclassified', reason: `unreadable MIME: ${(error as Error).message}`.slice(0, 200), original: {} };
  }
  try {
    const type = reportType(mail);
    if (type === 'delivery-status' || type === 'global-delivery-status') return await deliveryStatus(mail, raw);
    if (type === 'feedback-report') return await complaint(mail, raw);
    if (fromMailerDaemon(mail) || bounceSubject.test(mail.subject ?? '')) return await notice(mail, raw);
    if (isAutoReply(mail)) return { kind: 'auto_reply' };
    return {
      kind: 'unclassified',
      reason: 'neither a delivery report, a complaint nor an auto-reply',
      original: await originalOf(mail, raw),
    };
  } catch (error) {
    // Whatever a malformed mail does to the parts above, it is recorded, never a crash.
    return { kind: 'unclassified', reason: `unreadable report: ${(error as Error).message}`.slice(0, 200), original: {} };
  }
}
