import type { Attachment, ContentSendRequest } from '@postbus/contracts';
import { ATTACHMENT_LIMITS, isReservedHeader } from '@postbus/contracts/values';
import { addressingOf } from './addressing';
import { ControlHeaderError, readControlHeaders } from './control-headers';
import type { PreparedSend, SmtpAnswer } from './ports';
import type { Envelope, MailAddress, SubmittedAttachment, SubmittedMail } from './submitted-mail';

/** One content send of a submitted message, and the Idempotency-Key it is made with. */
export interface PlannedSend {
  /** The body of the gateway's content send, `POST /v1/projects/{projectId}/emails/send` (never with a `user`: SMTP registers no profile). */
  request: ContentSendRequest;
  /** The one X-Postbus-Idempotency-Key gave (numbered when the message makes several sends). */
  idempotencyKey?: string;
}

/** What a submitted message comes to: its content sends (one, or one per blind recipient), or the refusal of it. */
export type SubmissionPlan = { sends: PlannedSend[] } | { refusal: SmtpAnswer };

/** The characters a display name keeps: the gateway reads `Name <address>`, so no angle bracket, quote or line break. */
const nameOf = (name: string) =>
  name
    .replace(/[<>"\r\n\t]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The From of a send: `Name <address>` or the address alone. */
export const fromOf = ({ name, address }: MailAddress): string => {
  const display = nameOf(name);
  return display ? `${display} <${address}>` : address;
};

/** Common media types' file name extensions, for a part that names no file. */
const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/json': 'json',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'text/plain': 'txt',
  'text/html': 'html',
  'text/csv': 'csv',
  'text/calendar': 'ics',
  'message/rfc822': 'eml',
};

const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;

/** A file name the send takes: no path or line break, at most ATTACHMENT_LIMITS.filenameLength characters; one made up for a part without. */
function filenameOf(attachment: SubmittedAttachment, position: number): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is removed
  const given = (attachment.filename ?? '').replace(/[/\\\u0000-\u001f\u007f]+/g, '_').trim();
  const name = given || `${attachment.contentId ?? `attachment-${position}`}.${EXTENSIONS[attachment.contentType] ?? 'bin'}`;
  if (name.length <= ATTACHMENT_LIMITS.filenameLength) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  return name.slice(0, ATTACHMENT_LIMITS.filenameLength - extension.length) + extension;
}

function attachmentOf(attachment: SubmittedAttachment, position: number): Attachment {
  return {
    filename: filenameOf(attachment, position),
    content: Buffer.from(attachment.content.buffer, attachment.content.byteOffset, attachment.content.byteLength).toString('base64'),
    ...(MEDIA_TYPE.test(attachment.contentType) ? { content_type: attachment.contentType } : {}),
    ...(attachment.inline && attachment.contentId ? { content_id: attachment.contentId } : {}),
  };
}

/** The custom headers a send carries: every header but the reserved ones (which include the control headers), the first of a repeated name. */
export function customHeadersOf(mail: Pick<SubmittedMail, 'headers'>): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { name, value } of mail.headers) {
    const key = name.toLowerCase();
    if (seen.has(key) || isReservedHeader(name)) continue;
    seen.add(key);
    // Unfolded (a line break before white space goes), any other line break a space: a value is one line.
    headers[name] = value
      .replace(/\r?\n(?=[ \t])/g, '')
      .replace(/[\r\n]+/g, ' ')
      .trim();
  }
  return headers;
}

const refusal = (code: number, message: string): { refusal: SmtpAnswer } => ({ refusal: { code, message } });

/**
 * The content sends a submitted message makes (see addressingOf for who receives which), each with
 * the Idempotency-Key X-Postbus-Idempotency-Key gives (one per send, numbered, when the message
 * becomes several). Without one a send has none, as SMTP has none: a client that retries a message
 * after a 451 whose send went through after all (a gateway timeout) may send it twice. A key per
 * message made from its digest would spare that rare case, but its record costs the gateway as
 * much again as the rest of the submission (bench/README.md, "SMTP submission").
 *
 * What the mail keeps: From (with its display name), Subject, the HTML and text bodies, Reply-To
 * (its first address), the attachments with their media types and inline parts' Content-IDs, and
 * every custom header but the reserved ones (Date, Message-ID, MIME-Version, Content-*, Received,
 * DKIM-Signature…: Postbus writes its own). The control headers set the send's options and are
 * never delivered. A message without a subject or without a body is refused here: each is a 550
 * naming it; every other rule (the sender domain, sizes, the files' types) is the gateway's.
 */
export function planSubmission(mail: SubmittedMail, envelope: Envelope): SubmissionPlan {
  let control;
  try {
    control = readControlHeaders(mail.headers);
  } catch (error) {
    if (error instanceof ControlHeaderError) return refusal(550, `5.6.0 ${error.message}`);
    throw error;
  }
  const subject = mail.subject?.replace(/[\r\n]+/g, ' ').trim();
  if (!subject) return refusal(550, '5.6.0 The message has no Subject: Postbus sends a message with a subject of 1 to 998 characters');
  if (!mail.html && !mail.text) return refusal(550, '5.6.0 The message has no text or HTML body');
  const addressings = addressingOf(
    envelope.rcptTo,
    mail.to.map((a) => a.address),
    mail.cc.map((a) => a.address),
  );
  if (addressings.length === 0 || addressings[0]!.to.length === 0) return refusal(554, '5.5.1 No valid recipients');

  const { idempotencyKey, ...options } = control;
  const headers = customHeadersOf(mail);
  const from = mail.from[0];
  const content = {
    ...(from ? { from: fromOf(from) } : {}),
    subject,
    ...(mail.html ? { html: mail.html } : {}),
    ...(mail.text ? { text: mail.text } : {}),
    ...(mail.replyTo[0] ? { reply_to: mail.replyTo[0].address } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(mail.attachments.length > 0 ? { attachments: mail.attachments.map((a, i) => attachmentOf(a, i + 1)) } : {}),
    ...options,
  };
  const keyOf = (position: number) =>
    idempotencyKey === undefined || addressings.length === 1 ? idempotencyKey : `${idempotencyKey.slice(0, 240)}:${position}`;
  return {
    sends: addressings.map(({ to, cc, bcc }, i) => ({
      request: {
        to: to.length === 1 ? to[0]! : to,
        ...(cc.length > 0 ? { cc } : {}),
        ...(bcc.length > 0 ? { bcc } : {}),
        ...content,
      },
      ...(idempotencyKey !== undefined ? { idempotencyKey: keyOf(i + 1)! } : {}),
    })),
  };
}

/** A planned send as the gateway takes it: its body as JSON. */
export const prepareSend = ({ request, idempotencyKey }: PlannedSend): PreparedSend => ({ body: JSON.stringify(request), idempotencyKey });
