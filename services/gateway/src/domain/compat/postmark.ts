import addressparser from 'nodemailer/lib/addressparser';
import {
  normaliseEmail,
  POSTMARK_STREAM,
  type Attachment,
  type ContentSendRequest,
  type Message,
  type MessageContent,
  type PostmarkAttachment,
  type PostmarkBatchResponse,
  type PostmarkError,
  type PostmarkHeader,
  type PostmarkMessage,
  type PostmarkMessageEvent,
  type PostmarkOutboundMessageDetails,
  type PostmarkSendResponse,
  type PostmarkTemplateMessage,
  type SendBatchResult,
  type SendEmailRequest,
} from '@postbus/contracts';
import { AppError, type FieldError, type Problem } from '@postbus/errors';

/** The error codes of Postmark's API that Postbus answers (https://postmarkapp.com/developer/api/overview#error-codes). */
export const POSTMARK_CODES = {
  badToken: 10,
  /** Postmark's "maintenance": the service cannot answer now; retry. */
  unavailable: 100,
  invalidRequest: 300,
  senderNotFound: 400,
  senderNotConfirmed: 401,
  invalidJson: 402,
  jsonRequired: 409,
  inactiveRecipient: 406,
  tooManyBatchMessages: 410,
  forbiddenAttachment: 411,
  rateLimited: 429,
  messageNotFound: 701,
  templateNotFound: 1101,
  streamNotFound: 1235,
} as const;

/** A request, or one message of a batch, refused with one of Postmark's error codes (HTTP 422 unless said). */
export class PostmarkRefusal extends AppError {
  constructor(
    readonly errorCode: number,
    message: string,
    status = 422,
  ) {
    super(status, `postmark-${errorCode}`, 'Refused', message);
  }
}

const invalid = (message: string) => new PostmarkRefusal(POSTMARK_CODES.invalidRequest, message);

/** Whether an address has the form of one (the schemas' email format). */
export type AddressCheck = (address: string) => boolean;

type AddressField = 'From' | 'To' | 'Cc' | 'Bcc' | 'ReplyTo';

/**
 * The addresses of a Postmark address list ("a@x.example, Ann <b@x.example>", a quoted name may
 * hold a comma), parsed by nodemailer's RFC 5322 parser. Display names are read and left: Postbus
 * names recipients by address. Anything that is not an address is ErrorCode 300, as Postmark says it.
 */
export function addressesOf(
  list: string | null | undefined,
  field: AddressField,
  isAddress: AddressCheck,
): Array<{ name: string; address: string }> {
  if (list === null || list === undefined || list.trim() === '') return [];
  return addressparser(list, { flatten: true }).map((entry) => {
    const address = entry.address.trim();
    if (!address || !isAddress(address)) throw invalid(`Invalid '${field}' address: '${address || entry.name}'.`);
    return { name: entry.name.trim(), address };
  });
}

/** The one address a field names (From, ReplyTo), or undefined when it names none. */
function oneAddress(value: string | null | undefined, field: AddressField, isAddress: AddressCheck) {
  const found = addressesOf(value, field, isAddress);
  if (found.length > 1) throw invalid(`Invalid '${field}' address: give one address, not ${found.length}.`);
  return found[0];
}

/** A From as the content send takes it: `"Name" <address>` (the name quoted, its quotes escaped), or the address. */
const senderText = ({ name, address }: { name: string; address: string }): string =>
  name ? `"${name.replace(/["\\]/g, (c) => `\\${c}`)}" <${address}>` : address;

/** Headers as a name → value object; a name given twice (in any case) is ErrorCode 300. */
function headersOf(headers: PostmarkHeader[] | null | undefined): Record<string, string> | undefined {
  if (!headers || headers.length === 0) return undefined;
  const seen = new Set<string>();
  for (const { Name } of headers) {
    if (seen.has(Name.toLowerCase())) throw invalid(`The header '${Name}' is given twice: a header is given once.`);
    seen.add(Name.toLowerCase());
  }
  // fromEntries makes every name an own property, __proto__ included (an assignment would drop it).
  return Object.fromEntries(headers.map(({ Name, Value }) => [Name, Value]));
}

/** Postmark's ContentID may carry the "cid:" the HTML refers to it by; Postbus names the id alone. */
const contentIdOf = (id: string | null | undefined): string | undefined => {
  const bare = id?.replace(/^cid:/i, '').trim();
  return bare ? bare : undefined;
};

function attachmentsOf(attachments: PostmarkAttachment[] | null | undefined): Attachment[] | undefined {
  if (!attachments || attachments.length === 0) return undefined;
  return attachments.map((a): Attachment => {
    // A media type's parameters (e.g. charset) are not kept: Postbus takes the type alone.
    const contentType = a.ContentType?.split(';')[0]?.trim();
    const contentId = contentIdOf(a.ContentID);
    return {
      filename: a.Name,
      content: a.Content,
      ...(contentType ? { content_type: contentType } : {}),
      ...(contentId !== undefined ? { content_id: contentId } : {}),
    };
  });
}

/** MessageStream: the one stream a project has, or none named. */
function refuseOtherStreams(stream: string | null | undefined): void {
  if (stream === null || stream === undefined || stream.toLowerCase() === POSTMARK_STREAM) return;
  throw new PostmarkRefusal(
    POSTMARK_CODES.streamNotFound,
    `The message stream '${stream}' does not exist: a Postbus project has one stream, '${POSTMARK_STREAM}', for its transactional mail (broadcast streams are not offered).`,
  );
}

/** What a send and a template send both say, as the core's message options. */
function optionsOf(message: PostmarkMessage | PostmarkTemplateMessage, isAddress: AddressCheck) {
  refuseOtherStreams(message.MessageStream);
  const cc = addressesOf(message.Cc, 'Cc', isAddress).map((a) => a.address);
  const bcc = addressesOf(message.Bcc, 'Bcc', isAddress).map((a) => a.address);
  const replyTo = oneAddress(message.ReplyTo, 'ReplyTo', isAddress);
  const headers = headersOf(message.Headers);
  const attachments = attachmentsOf(message.Attachments);
  const metadata = message.Metadata && Object.keys(message.Metadata).length > 0 ? message.Metadata : undefined;
  return {
    ...(cc.length > 0 ? { cc } : {}),
    ...(bcc.length > 0 ? { bcc } : {}),
    ...(replyTo ? { reply_to: replyTo.address } : {}),
    ...(headers ? { headers } : {}),
    ...(message.Tag ? { tags: [message.Tag] } : {}),
    ...(metadata ? { metadata } : {}),
    ...(attachments ? { attachments } : {}),
  };
}

const TRACK_CLICKS: Record<string, boolean> = { None: false, HtmlOnly: true, HtmlAndText: true };

/**
 * Postmark's POST /email as the core's content send: To's first address is the recipient, the
 * others are shown beside it; Cc, Bcc, ReplyTo, Headers, Attachments, Tag and Metadata map one to
 * one. The core's own checks (its schema, then the accept path's) judge the result.
 */
export function contentSendOf(message: PostmarkMessage, isAddress: AddressCheck): ContentSendRequest {
  const to = addressesOf(message.To, 'To', isAddress).map((a) => a.address);
  if (to.length === 0) throw invalid('Zero recipients specified: To names no address.');
  const from = oneAddress(message.From, 'From', isAddress);
  if (message.TrackLinks === 'TextOnly')
    throw invalid("TrackLinks 'TextOnly' is not offered: Postbus counts clicks on the HTML's links only (HtmlOnly).");
  const trackClicks = message.TrackLinks ? TRACK_CLICKS[message.TrackLinks] : undefined;
  return {
    to: to.length === 1 ? to[0]! : to,
    subject: message.Subject,
    ...(message.HtmlBody ? { html: message.HtmlBody } : {}),
    ...(message.TextBody ? { text: message.TextBody } : {}),
    ...(from ? { from: senderText(from) } : {}),
    ...(message.TrackOpens !== null && message.TrackOpens !== undefined ? { track_opens: message.TrackOpens } : {}),
    ...(trackClicks !== undefined ? { track_clicks: trackClicks } : {}),
    ...optionsOf(message, isAddress),
  };
}

/** A template send: the email it names (TemplateAlias), what it sends, and the From it asked for. */
export interface TemplateSend {
  emailKey: string;
  send: SendEmailRequest;
  /** The address From named, which must be the email's sender; undefined when it named none. */
  from: string | undefined;
}

/**
 * Postmark's POST /email/withTemplate as the core's template send: TemplateAlias names the
 * project's email by its key, TemplateModel is its data and To (one address) its user. The
 * email's template gives the subject and its settings the tracking: Subject, TrackOpens, TrackLinks
 * and InlineCss have no say.
 */
export function templateSendOf(message: PostmarkTemplateMessage, isAddress: AddressCheck): TemplateSend {
  if (message.TemplateId !== null && message.TemplateId !== undefined)
    throw invalid(
      "TemplateId is not offered: Postbus names a project's transactional emails by key. Send TemplateAlias with the email's key.",
    );
  if (!message.TemplateAlias) throw invalid("Provide TemplateAlias: the key of one of the project's transactional emails.");
  const to = addressesOf(message.To, 'To', isAddress);
  if (to.length === 0) throw invalid('Zero recipients specified: To names no address.');
  if (to.length > 1) throw invalid(`A template send goes to one user: To names ${to.length} addresses. Put the others in Cc or Bcc.`);
  return {
    emailKey: message.TemplateAlias,
    send: { user: { email: to[0]!.address }, data: message.TemplateModel, ...optionsOf(message, isAddress) },
    from: oneAddress(message.From, 'From', isAddress)?.address,
  };
}

/** A content send's recipient (its first To): whose suppression makes it a 406. */
export const contentRecipientOf = (send: ContentSendRequest): string => normaliseEmail(typeof send.to === 'string' ? send.to : send.to[0]!);

/**
 * ErrorCode 406 naming the suppressed addresses, in the sentence Postmark's SDKs read them from
 * (postmark.js matches /Found inactive addresses: (.+?)\.? Inactive/, postmark-gem likewise).
 */
export function inactiveRecipients(suppressed: Array<{ email: string; reason: string }>): PostmarkRefusal {
  const addresses = suppressed.map((s) => s.email).join(', ');
  const reasons = suppressed.map((s) => `${s.email}: ${s.reason}`).join(', ');
  return new PostmarkRefusal(
    POSTMARK_CODES.inactiveRecipient,
    `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${addresses}. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression. Postbus's reasons: ${reasons}.`,
  );
}

/** Whether a suppression reason keeps a send from its recipient: every one, but an unsubscribe for an email sent to the unsubscribed (the mailer's rule). */
const keepsFromMail = (reason: string, sendsToUnsubscribed: boolean): boolean => !(sendsToUnsubscribed && reason === 'unsubscribed');

/** ErrorCode 406 when the recipient is among the suppressed addresses (for a reason that holds for this send); else undefined. */
export function suppressionRefusal(
  suppressed: Array<{ email: string; reason: string }>,
  recipient: string,
  sendsToUnsubscribed: boolean,
): PostmarkRefusal | undefined {
  const address = normaliseEmail(recipient);
  const found = suppressed.find((s) => s.email === address && keepsFromMail(s.reason, sendsToUnsubscribed));
  return found ? inactiveRecipients([found]) : undefined;
}

/**
 * ErrorCode 400 when a template send's From is not the address its email is sent from (the
 * email's from_email, else the project's): the template send cannot send from another.
 */
export function senderRefusal(emailKey: string, from: string, sender: string | null): PostmarkRefusal | undefined {
  if (sender === null)
    return new PostmarkRefusal(
      POSTMARK_CODES.senderNotFound,
      `The email '${emailKey}' has no sender address to send From ${from}: set from_email on the email or on the project.`,
    );
  if (normaliseEmail(sender) === normaliseEmail(from)) return undefined;
  return new PostmarkRefusal(
    POSTMARK_CODES.senderNotFound,
    `From must be ${sender}: the email '${emailKey}' is sent from that address (change its from_email to send it from another address of the project's sender domain).`,
  );
}

/** One message of a Postmark batch, prepared: refused already, or the core's batch item with what its answer and its 406 need. */
export type PreparedItem =
  { refused: PostmarkError } | { item: Record<string, unknown>; to: string; recipient: string; sendsToUnsubscribed: boolean };

export interface BatchSending {
  /** The suppressed ones among the addresses (at most one a message), with their reasons. */
  suppressedAmong: (addresses: string[]) => Promise<Array<{ email: string; reason: string }>>;
  /** The core's batch send: each item accepted or rejected, `index` its place among those given. */
  sendBatch: (items: unknown[]) => Promise<SendBatchResult[]>;
  now: () => Date;
}

/**
 * A Postmark batch: the prepared messages whose recipient is suppressed answer 406, the others go
 * to the core's batch send together; one answer per message, in the request's order.
 */
export async function sendPostmarkBatch(prepared: PreparedItem[], sending: BatchSending): Promise<PostmarkBatchResponse> {
  const answers = prepared.map((p): PostmarkBatchResponse[number] | undefined => ('refused' in p ? p.refused : undefined));
  const ready = prepared.flatMap((p, index) => ('item' in p ? [{ ...p, index }] : []));
  const addresses = [...new Set(ready.map((r) => normaliseEmail(r.recipient)))];
  const suppressed = addresses.length > 0 ? await sending.suppressedAmong(addresses) : [];
  const toSend = ready.filter((r) => {
    const refusal = suppressionRefusal(suppressed, r.recipient, r.sendsToUnsubscribed);
    if (refusal) answers[r.index] = postmarkErrorOf(refusal.toProblem()).body;
    return refusal === undefined;
  });
  if (toSend.length > 0) {
    const results = await sending.sendBatch(toSend.map((r) => r.item));
    const at = sending.now();
    for (const result of results) {
      const sent = toSend[result.index]!;
      answers[sent.index] =
        result.status === 'accepted'
          ? sendingResponseOf(sent.to, result.message_id, at)
          : postmarkErrorOf({
              ...result.error,
              // The core points into its own batch (/messages/<i>/…): the message is this one.
              errors: result.error.errors?.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/messages\/\d+/, '') })),
            }).body;
    }
  }
  return answers.map((answer) => answer!);
}

/** The answer to one message sent. */
export const sendingResponseOf = (to: string, messageId: string, submittedAt: Date): PostmarkSendResponse => ({
  To: to,
  SubmittedAt: submittedAt.toISOString(),
  MessageID: messageId,
  ErrorCode: 0,
  Message: 'OK',
});

/** The core's field names (its pointers' first segment) as Postmark names them. */
const FIELD_NAMES: Record<string, string> = {
  to: 'To',
  user: 'To',
  cc: 'Cc',
  bcc: 'Bcc',
  from: 'From',
  reply_to: 'ReplyTo',
  subject: 'Subject',
  html: 'HtmlBody',
  text: 'TextBody',
  headers: 'Headers',
  tags: 'Tag',
  metadata: 'Metadata',
  track_opens: 'TrackOpens',
  track_clicks: 'TrackLinks',
  data: 'TemplateModel',
  email_key: 'TemplateAlias',
  attachments: 'Attachments',
};

const ATTACHMENT_FIELDS: Record<string, string> = {
  filename: 'Name',
  content: 'Content',
  content_type: 'ContentType',
  content_id: 'ContentID',
};

/**
 * Where a field error points, in Postmark's words: a pointer into the core's body (/attachments/0/filename)
 * or into Postmark's own (/Attachments/0/Name) becomes "Attachments[0].Name"; a header or metadata
 * key is named after its field.
 */
export function postmarkFieldOf(pointer: string): string {
  const [first, ...rest] = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (first === undefined || first === '') return 'the message';
  const field = FIELD_NAMES[first] ?? first;
  if (field === 'To' || field === 'Cc' || field === 'Bcc' || field === 'Tag') return field;
  // The core's headers and either's metadata are objects: the key is the name. Postmark's Headers are a list.
  if ((first === 'headers' || field === 'Metadata') && rest.length > 0) return `${field} '${rest.join('/')}'`;
  return rest.reduce((path, segment) => {
    if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
    return `${path}.${field === 'Attachments' ? (ATTACHMENT_FIELDS[segment] ?? segment) : segment}`;
  }, field);
}

/** A problem's detail and field errors as one Postmark Message. */
const messageOf = (problem: Pick<Problem, 'title' | 'detail' | 'errors'>): string => {
  const fields = (problem.errors ?? []).map((e: FieldError) => `${postmarkFieldOf(e.pointer)}: ${e.message}`).join('; ');
  const detail = problem.detail ?? problem.title;
  return fields ? `${detail} ${fields}.` : detail;
};

const slugOf = (problem: Pick<Problem, 'type'>): string => problem.type.replace(/^\/problems\//, '');

/**
 * Any problem of the core (a thrown AppError's, or a batch item's rejection) as Postmark answers
 * it: its HTTP status and {ErrorCode, Message}. Input the core refuses is 422 with ErrorCode 300,
 * or the code Postmark has for it (400 sender, 401 sender not verified, 411 attachment, 1101
 * template); a bad token is 401 with ErrorCode 10.
 */
export function postmarkErrorOf(problem: Pick<Problem, 'type' | 'title' | 'status' | 'detail' | 'errors'>): {
  status: number;
  body: PostmarkError;
} {
  const answer = (status: number, code: number, message = messageOf(problem)) => ({ status, body: { ErrorCode: code, Message: message } });
  const slug = slugOf(problem);
  if (slug.startsWith('postmark-')) return answer(problem.status, Number(slug.slice('postmark-'.length)), problem.detail ?? problem.title);
  switch (slug) {
    case 'unauthorized':
      return answer(
        401,
        POSTMARK_CODES.badToken,
        'Request does not contain a valid Server token: send a Postbus API key bound to a project in X-Postmark-Server-Token.',
      );
    case 'forbidden':
      return answer(401, POSTMARK_CODES.badToken);
    case 'malformed-request':
      return answer(422, POSTMARK_CODES.invalidJson);
    case 'unsupported-media-type':
      return answer(422, POSTMARK_CODES.jsonRequired);
    case 'payload-too-large':
      return answer(413, POSTMARK_CODES.invalidRequest);
    case 'from-email-not-on-sender-domain':
    case 'sender-domain-missing':
      return answer(422, POSTMARK_CODES.senderNotFound);
    case 'sender-domain-unverified':
      return answer(422, POSTMARK_CODES.senderNotConfirmed);
    case 'attachment-refused':
      // The core refuses programs and scripts, by name or content (Postmark's forbidden types), and files that are not base64.
      return answer(
        422,
        (problem.errors ?? []).some((e) => e.message.includes('program or script'))
          ? POSTMARK_CODES.forbiddenAttachment
          : POSTMARK_CODES.invalidRequest,
      );
    case 'template-missing':
      return answer(422, POSTMARK_CODES.templateNotFound);
    case 'rate-limited':
      return answer(429, POSTMARK_CODES.rateLimited);
    case 'not-found':
      return answer(404, 404);
    default:
      return problem.status >= 500
        ? answer(problem.status, POSTMARK_CODES.unavailable)
        : answer(problem.status === 409 ? 409 : 422, POSTMARK_CODES.invalidRequest);
  }
}

/** Any error thrown on a Postmark route, as Postmark answers it (anything but an AppError is a 500). */
export function answerPostmarkError(error: unknown): { status: number; body: PostmarkError } {
  if (error instanceof AppError) return postmarkErrorOf(error.toProblem());
  return postmarkErrorOf({
    type: '/problems/internal',
    title: 'Internal error',
    status: 500,
    detail: 'Something went wrong on our side; quote the request id when reporting it.',
  });
}

/** A message's status in Postmark's words; the ones Postmark has no word for keep Postbus's. */
const STATUSES: Record<Message['status'], string> = {
  accepted: 'Queued',
  queued: 'Queued',
  deferred: 'Queued',
  scheduled: 'Scheduled',
  sent: 'Sent',
  bounced: 'Sent',
  failed: 'Failed',
  suppressed: 'Suppressed',
  canceled: 'Canceled',
};

type TimelineEntry = Message['timeline'][number];

/** A timeline entry as a Postmark message event; the queueing ones (queued, scheduled) are none. */
function eventOf(recipient: string, entry: TimelineEntry): PostmarkMessageEvent | undefined {
  const at = { Recipient: recipient, ReceivedAt: entry.at };
  const said = entry.smtp ? `${entry.smtp.code} ${entry.smtp.response}` : (entry.reason ?? '');
  switch (entry.event) {
    case 'sent':
      return { ...at, Type: 'Delivered', Details: { DeliveryMessage: said, DestinationServer: '', DestinationIP: '' } };
    case 'deferred':
    case 'soft_bounced':
      return { ...at, Type: 'Transient', Details: { DeliveryMessage: said, DestinationServer: '', DestinationIP: '' } };
    case 'bounced':
      return { ...at, Type: 'Bounced', Details: { Summary: said, BounceID: 0 } };
    case 'complained':
      return { ...at, Type: 'Bounced', Details: { Summary: `Spam complaint${said ? `: ${said}` : ''}`, BounceID: 0 } };
    case 'opened':
      return { ...at, Type: 'Opened', Details: { Summary: 'Opened' } };
    case 'clicked':
      return { ...at, Type: 'LinkClicked', Details: { Summary: 'Clicked', Link: entry.url ?? '', ClickLocation: 'HTML' } };
    case 'unsubscribed':
      return { ...at, Type: 'SubscriptionChanged', Details: { Origin: 'Recipient', SuppressSending: 'True', Summary: 'Unsubscribed' } };
    case 'failed':
      return { ...at, Type: 'Failed', Details: { Summary: said } };
    case 'suppressed':
      return { ...at, Type: 'Suppressed', Details: { Summary: said } };
    case 'canceled':
      return { ...at, Type: 'Canceled', Details: { Summary: said } };
    case 'queued':
    case 'scheduled':
      return undefined;
  }
}

const recipients = (addresses: string[] | undefined) => (addresses ?? []).map((email) => ({ Email: email, Name: '' }));

/**
 * GET /messages/outbound/{id}/details: a Postbus message (its read, and its rendered email when
 * there is one) in Postmark's shape. From, TrackOpens and TrackLinks are not in the message log,
 * and so not in the answer; the bodies are there once the message is rendered.
 */
export function outboundDetailsOf(message: Message, content: MessageContent | null | undefined): PostmarkOutboundMessageDetails {
  const to = [message.email, ...(message.to ?? [])];
  return {
    MessageID: message.id,
    MessageStream: POSTMARK_STREAM,
    ...(message.tags[0] !== undefined ? { Tag: message.tags[0] } : {}),
    To: recipients(to),
    Cc: recipients(message.cc),
    Bcc: recipients(message.bcc),
    Recipients: [...to, ...(message.cc ?? []), ...(message.bcc ?? [])],
    ReceivedAt: message.accepted_at,
    Subject: message.subject ?? content?.subject ?? '',
    Attachments: message.attachments.map((a) => a.filename),
    Status: STATUSES[message.status],
    Metadata: message.metadata,
    Sandboxed: message.test,
    ...(content ? { HtmlBody: content.html, TextBody: content.text } : {}),
    MessageEvents: message.timeline.flatMap((entry) => eventOf(message.email, entry) ?? []),
  };
}
