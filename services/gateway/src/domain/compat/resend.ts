import {
  MessageParams,
  RESEND_EVENT_OF,
  type Attachment,
  type ContentSendRequest,
  type Message,
  type MessageContent,
  type ResendAttachment,
  type ResendBatchItem,
  type ResendEmail,
  type ResendError,
  type ResendErrorName,
  type ResendLastEvent,
  type ResendSendRequest,
  type ResendTag,
  type SendEmailRequest,
} from '@postbus/contracts';
import { AppError, type FieldError, type Problem } from '@postbus/errors';
import { parseSender } from '../content-send';
import type { SendsDeps } from '../sends';

/** A request, or one email of a batch, refused with one of Resend's error names. */
export class ResendRefusal extends AppError {
  constructor(name: ResendErrorName, message: string, status = 422) {
    super(status, `resend-${name}`, 'Refused', message);
  }
}

const invalid = (message: string) => new ResendRefusal('validation_error', message);
const missing = (field: string) => new ResendRefusal('missing_required_field', `Missing \`${field}\` field.`);

const MESSAGE_ID = new RegExp(MessageParams.properties.messageId.pattern!);

/** A message id as the core names them: anything else is no email of Postbus's. */
export const isMessageId = (id: string): boolean => MESSAGE_ID.test(id);

type AddressCheck = SendsDeps['isAddress'];

/** What mapping a send needs besides the send: the time scheduled_at is read from, and the address check. */
export interface SendMapping extends Pick<SendsDeps, 'isAddress'> {
  now: Date;
}

/** The address of a mailbox (an address, or `Name <address>`), or undefined when it is none. */
function addressOf(mailbox: string, isAddress: AddressCheck): string | undefined {
  const address = parseSender(mailbox)?.address;
  return address !== undefined && isAddress(address) ? address : undefined;
}

const badAddress = (field: string) =>
  invalid(
    `Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`,
  );

/**
 * The addresses of a Resend address field (an address, `Name <address>`, or a list of those), as
 * the core takes them: display names are read and left, Postbus names recipients by address.
 */
function addressesOf(value: string | string[] | undefined, field: string, isAddress: AddressCheck): string[] | undefined {
  if (value === undefined) return undefined;
  return (typeof value === 'string' ? [value] : value).map((mailbox) => {
    const address = addressOf(mailbox, isAddress);
    if (address === undefined) throw badAddress(field);
    return address;
  });
}

/** Tags as metadata: each name a key, each value its value (an empty one when none is given). */
function metadataOf(tags: ResendTag[] | undefined): Record<string, string> | undefined {
  if (!tags || tags.length === 0) return undefined;
  const metadata: Record<string, string> = {};
  for (const { name, value } of tags) {
    if (name in metadata) throw invalid(`The tag \`${name}\` is given twice: each tag name once.`);
    metadata[name] = value ?? '';
  }
  return metadata;
}

/** An attachment's content as base64: a string is taken as base64 already; a list holds the bytes. */
function base64Of(content: string | unknown[], at: string): string {
  if (typeof content === 'string') return content;
  const isByte = (b: unknown): b is number => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255;
  if (!content.every(isByte))
    throw new ResendRefusal('invalid_attachment', `\`${at}.content\` must be base64, or a list of bytes (integers 0 to 255).`);
  return Buffer.from(content).toString('base64');
}

function attachmentsOf(attachments: ResendAttachment[] | undefined): Attachment[] | undefined {
  if (!attachments || attachments.length === 0) return undefined;
  return attachments.map((a, i): Attachment => {
    const at = `attachments[${i}]`;
    if (a.path !== undefined)
      throw new ResendRefusal(
        'invalid_attachment',
        `\`${at}.path\` is not offered: Postbus fetches no URL for a send. Send the file itself as \`content\` (base64).`,
      );
    if (a.content === undefined) throw new ResendRefusal('invalid_attachment', `\`${at}\` must have a \`content\`.`);
    if (a.filename === undefined) throw new ResendRefusal('invalid_attachment', `\`${at}\` must have a \`filename\`.`);
    const contentId = a.content_id ?? a.inline_content_id;
    return {
      filename: a.filename,
      content: base64Of(a.content, at),
      ...(a.content_type !== undefined ? { content_type: a.content_type } : {}),
      ...(contentId !== undefined ? { content_id: contentId } : {}),
    };
  });
}

const UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
// Linear: one pass, no nested quantifier; the schema caps the value at 64 characters.
const IN_DURATION = /^in\s+(\d{1,6})\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)$/i;
// RFC 3339 with its time zone (Z or ±hh:mm); ISO 8601 without one names no instant.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/**
 * `scheduled_at` as an instant (ISO 8601): an ISO 8601 time with its zone, or "in <n> <unit>"
 * from `now`. Resend's other natural language ("tomorrow at 9am", "Friday at 3pm ET") is refused:
 * Postbus does not guess a zone or a calendar for it.
 */
export function scheduledAtOf(value: string, now: Date): string {
  const text = value.trim();
  const duration = IN_DURATION.exec(text);
  if (duration) return new Date(now.getTime() + Number(duration[1]) * UNITS_MS[duration[2]![0]!.toLowerCase()]!).toISOString();
  const at = ISO_INSTANT.test(text) ? Date.parse(text.replace(' ', 'T')) : NaN;
  if (Number.isNaN(at))
    throw invalid(
      'Invalid `scheduled_at` field: give an ISO 8601 time with its zone (e.g. 2026-08-05T11:52:01Z), or "in <n> <minutes|hours|days>". Postbus does not read other natural language.',
    );
  return new Date(at).toISOString();
}

/** The options a send and a template send share, as the core's fields. */
function optionsOf(email: ResendBatchItem & Pick<ResendSendRequest, 'attachments'>, { now, isAddress }: SendMapping) {
  const cc = addressesOf(email.cc, 'cc', isAddress);
  const bcc = addressesOf(email.bcc, 'bcc', isAddress);
  const replyTo = addressesOf(email.reply_to, 'reply_to', isAddress)?.[0];
  const metadata = metadataOf(email.tags);
  const attachments = attachmentsOf(email.attachments);
  return {
    ...(cc && cc.length > 0 ? { cc } : {}),
    ...(bcc && bcc.length > 0 ? { bcc } : {}),
    ...(replyTo !== undefined ? { reply_to: replyTo } : {}),
    ...(email.headers && Object.keys(email.headers).length > 0 ? { headers: email.headers } : {}),
    ...(metadata ? { metadata } : {}),
    ...(attachments ? { attachments } : {}),
    ...(email.scheduled_at !== undefined ? { send_at: scheduledAtOf(email.scheduled_at, now) } : {}),
  };
}

/** A Resend send, as one of the core's: a content send, or a template send of the email `template.id` names. */
export type ResendSend = { kind: 'content'; send: ContentSendRequest } | { kind: 'template'; emailKey: string; send: SendEmailRequest };

/**
 * Resend's POST /emails (or a batch's email) as the core's send. `to`'s first address is the
 * recipient, the others are copies shown beside it; tags become metadata; scheduled_at becomes
 * send_at. With `template`, the project's email of that key (or id) is sent to `to` with
 * `variables` as its data: the email gives the sender, the subject and the bodies. The core's own
 * checks (its schema, then the accept path's) judge the result.
 */
export function resendSendOf(email: ResendSendRequest, mapping: SendMapping): ResendSend {
  const to = addressesOf(email.to, 'to', mapping.isAddress)!;
  const options = optionsOf(email, mapping);
  if (email.template) {
    const given = (['from', 'subject', 'html', 'text'] as const).filter((field) => email[field] !== undefined);
    if (given.length > 0)
      throw invalid(
        `\`template\` sends the project's email \`${email.template.id}\`, whose settings and template give the sender, the subject and the bodies: leave out ${given.map((f) => `\`${f}\``).join(', ')}.`,
      );
    if (to.length > 1)
      throw invalid(`A template send goes to one recipient: \`to\` names ${to.length}. Put the others in \`cc\` or \`bcc\`.`);
    return {
      kind: 'template',
      emailKey: email.template.id,
      send: { user: { email: to[0]! }, ...(email.template.variables ? { data: email.template.variables } : {}), ...options },
    };
  }
  if (email.from === undefined) throw missing('from');
  if (addressOf(email.from, mapping.isAddress) === undefined)
    throw new ResendRefusal(
      'invalid_from_address',
      'Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.',
    );
  if (email.subject === undefined) throw missing('subject');
  if (email.html === undefined && email.text === undefined)
    throw new ResendRefusal('missing_required_field', 'Missing `html` or `text` field.');
  return {
    kind: 'content',
    send: {
      from: email.from,
      to,
      subject: email.subject,
      ...(email.html !== undefined ? { html: email.html } : {}),
      ...(email.text !== undefined ? { text: email.text } : {}),
      ...options,
    },
  };
}

/** A Resend batch's email as the core's batch item: a template send names its email by `email_key`. */
export function resendBatchItemOf(email: ResendBatchItem, mapping: SendMapping): Record<string, unknown> {
  const mapped = resendSendOf(email, mapping);
  return mapped.kind === 'content' ? mapped.send : { email_key: mapped.emailKey, ...mapped.send };
}

/** Which events a timeline entry stands for in Resend's words (an unsubscribe has no word there). */
const LAST_EVENTS: Record<Message['status'] | Message['timeline'][number]['event'], ResendLastEvent | undefined> = {
  ...RESEND_EVENT_OF,
  // Accepted: on the bus, not recorded yet (Resend's "queued"); recorded, it is Resend's "sent".
  accepted: 'queued',
  soft_bounced: 'delivery_delayed',
  unsubscribed: undefined,
};

/** The latest entry of the message's timeline that Resend has a word for; its status when none has. */
export function lastEventOf(message: Pick<Message, 'status' | 'timeline'>): ResendLastEvent {
  const entries = [...message.timeline].sort((a, b) => b.sequence - a.sequence);
  for (const entry of entries) {
    const event = LAST_EVENTS[entry.event];
    if (event) return event;
  }
  return LAST_EVENTS[message.status] ?? 'queued';
}

const addressesOrNull = (addresses: string[] | undefined): string[] | null => (addresses && addresses.length > 0 ? addresses : null);

/**
 * GET /emails/{id}: a Postbus message (its read, and its rendered email once there is one) in
 * Resend's shape. The message log keeps neither the sender nor the reply address of a send:
 * `from` is empty and `reply_to` null.
 */
export function resendEmailOf(message: Message, content: MessageContent | null | undefined): ResendEmail {
  return {
    object: 'email',
    id: message.id,
    to: [message.email, ...(message.to ?? [])],
    from: '',
    created_at: message.accepted_at,
    subject: message.subject ?? content?.subject ?? '',
    html: content?.html ?? null,
    text: content?.text ?? null,
    cc: addressesOrNull(message.cc),
    bcc: addressesOrNull(message.bcc),
    reply_to: null,
    last_event: lastEventOf(message),
    scheduled_at: message.send_at ?? null,
    tags: Object.entries(message.metadata).map(([name, value]) => ({ name, value })),
  };
}

/** The core's field names (its pointers' first segment) as Resend names them. */
const FIELD_NAMES: Record<string, string> = {
  send_at: 'scheduled_at',
  metadata: 'tags',
  user: 'to',
  data: 'template.variables',
  email_key: 'template.id',
};

/**
 * Where a field error points, in Resend's words: a pointer into the core's body or Resend's
 * (/attachments/0/filename) becomes `attachments[0].filename`, /send_at `scheduled_at`.
 */
export function resendFieldOf(pointer: string): string {
  const [first, ...rest] = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (first === undefined || first === '') return 'body';
  const field = FIELD_NAMES[first] ?? first;
  // The user is the recipient: its fields are all `to`; tags are pairs of the metadata, named as a whole.
  if (first === 'user' || first === 'metadata') return field;
  return rest.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`), field);
}

/** A field error in Resend's words. */
const fieldMessage = ({ pointer, message }: FieldError): string => {
  const field = resendFieldOf(pointer);
  if (message === 'is required') return `Missing \`${field}\` field.`;
  if (message === 'must match format "email"')
    return `Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`;
  return `Invalid \`${field}\` field: ${message}.`;
};

const slugOf = (problem: Pick<Problem, 'type'>): string => problem.type.replace(/^\/problems\//, '');

/** The default detail of an UnauthorizedError: no credentials were sent at all. */
const NO_CREDENTIALS = /^Send the client id and API key as HTTP Basic credentials\.$/;

/**
 * Any problem of the core (a thrown AppError's, or a batch item's rejection) as Resend answers it:
 * {statusCode, message, name} with Resend's names and statuses (https://resend.com/docs/api-reference/errors).
 */
export function resendErrorOf(problem: Pick<Problem, 'type' | 'title' | 'status' | 'detail' | 'errors'>): {
  status: number;
  body: ResendError;
} {
  const fields = problem.errors ?? [];
  const detail = problem.detail ?? problem.title;
  const answer = (status: number, name: ResendErrorName, message = detail) => ({ status, body: { statusCode: status, message, name } });
  const slug = slugOf(problem);
  if (slug.startsWith('resend-')) return answer(problem.status, slug.slice('resend-'.length) as ResendErrorName);
  switch (slug) {
    case 'validation-failed': {
      if (fields.some((e) => e.pointer === '' && /Idempotency-Key/.test(e.message))) return answer(400, 'invalid_idempotency_key');
      if (fields.length > 0 && fields.every((e) => e.message === 'is required'))
        return answer(422, 'missing_required_field', fields.map(fieldMessage).join(' '));
      return answer(400, 'validation_error', fields.length > 0 ? fields.map(fieldMessage).join(' ') : detail);
    }
    case 'malformed-request':
    case 'unsupported-media-type':
      return answer(400, 'validation_error');
    case 'payload-too-large':
      return answer(413, 'validation_error');
    case 'unauthorized':
      return NO_CREDENTIALS.test(detail)
        ? answer(
            401,
            'missing_api_key',
            'Missing API key in the authorization header: send `Authorization: Bearer <a Postbus API key bound to a project>`.',
          )
        : answer(403, 'invalid_api_key', 'API key is invalid.');
    case 'forbidden':
      // A key's scope (an sdk key sends only, a test key sends and reads test mail): Resend's "restricted" key.
      return /scope|test key/.test(detail) ? answer(401, 'restricted_api_key') : answer(403, 'invalid_api_key');
    case 'not-found':
      return answer(404, 'not_found');
    case 'method-not-allowed':
      return answer(405, 'method_not_allowed');
    case 'idempotency-key-reused':
      return answer(409, 'invalid_idempotent_request', 'Same idempotency key used with a different request payload.');
    case 'idempotency-in-flight':
      return answer(409, 'concurrent_idempotent_requests', 'Same idempotency key used while original request is still in progress.');
    case 'rate-limited':
      return answer(429, 'rate_limit_exceeded');
    case 'from-email-not-on-sender-domain':
    case 'sender-domain-missing':
    case 'sender-domain-unverified':
      // As Resend answers a From on a domain that is not verified.
      return answer(403, 'validation_error');
    case 'invalid-content':
      return fields.some((e) => e.pointer === '/from')
        ? answer(422, 'invalid_from_address', fields.map(fieldMessage).join(' '))
        : answer(422, 'validation_error', fields.map(fieldMessage).join(' ') || detail);
    case 'attachment-refused':
    case 'attachments-too-large':
      return answer(422, 'invalid_attachment');
    case 'invalid-send-at':
      return answer(
        422,
        'validation_error',
        `Invalid \`scheduled_at\` field: ${fields[0]?.message ?? 'out of range'}; schedule an email from now up to 30 days ahead.`,
      );
    default:
      if (problem.status >= 500) return answer(problem.status, 'application_error');
      if (problem.status === 409) return answer(409, 'validation_error');
      return answer(422, 'validation_error', fields.length > 0 ? `${detail} ${fields.map(fieldMessage).join(' ')}` : detail);
  }
}

/** Any error thrown on a Resend route, as Resend answers it (anything but an AppError is a 500). */
export function answerResendError(error: unknown): { status: number; body: ResendError } {
  if (error instanceof AppError) return resendErrorOf(error.toProblem());
  return resendErrorOf({ type: '/problems/internal', title: 'Internal error', status: 500, detail: 'An unexpected error occurred.' });
}
