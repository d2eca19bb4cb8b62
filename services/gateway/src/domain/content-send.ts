import {
  CONTENT_LIMITS,
  normaliseEmail,
  userOrderingKey,
  type ContentSendRequest,
  type EmailTriggerCommand,
  type SendSource,
} from '@postbus/contracts';
import { UnprocessableError, type FieldError } from '@postbus/errors';
import { prepareAttachments } from './attachments';
import type { Trigger } from './trigger';
import { messageOptions, refuseBadCopies, refuseBadSendAt, refuseReservedHeaders } from './message-options';
import { domainOf } from './sender-address';

/** What a content send needs of its project, once its sender domain is known to be verified. */
export interface ContentPlan {
  /** The verified sender domain every From must be on. */
  senderDomain: string;
  /** The project's tracking, for a send that does not say. */
  trackOpens: boolean;
  trackClicks: boolean;
}

/** What accepting one content send needs beyond the send itself. */
export interface ContentAcceptance {
  /** The project's plan; throws an AppError for what the client must fix (no sender domain, not verified). */
  plan: () => Promise<ContentPlan>;
  /** Stores the send's attachments (in order) under its message id, where the mailer reads them. */
  storeAttachments: (messageId: string, files: Buffer[]) => Promise<void>;
  newMessageId: () => string;
  /** When the send was accepted: its send_at is judged against it. */
  now: Date;
  /** Sent with a test key (see EmailTriggerCommand's test). */
  test: boolean;
  /** How it came: the HTTP API, or SMTP submission (the submission service's calls). */
  source: SendSource;
  /** Whether an address has the form of one (the schemas' email format). */
  isAddress: (address: string) => boolean;
}

/** A From as a content send gives it: an address, or `Name <address>` (the name may be quoted). */
export function parseSender(from: string): { name: string | null; address: string } | undefined {
  const named = /^\s*(?:"((?:[^"\\]|\\.)*)"|([^"<>]*?))\s*<([^<>\s]+)>\s*$/.exec(from);
  if (named) {
    const name = (named[1] !== undefined ? named[1].replace(/\\(.)/g, '$1') : (named[2] ?? '')).trim();
    return { name: name === '' ? null : name, address: named[3]! };
  }
  const bare = from.trim();
  return /^[^\s<>"]+$/.test(bare) ? { name: null, address: bare } : undefined;
}

const utf8Bytes = (text: string | undefined): number => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));

/**
 * What the schema cannot say of a content send's bodies and sender: html or text (or both), each
 * within its bytes (the schema counts characters), and a From of the form `Name <address>` or an
 * address. Each problem points at its field.
 */
function refuseBadContent(send: ContentSendRequest, isAddress: ContentAcceptance['isAddress']): void {
  const errors: FieldError[] = [];
  if (send.html === undefined && send.text === undefined) errors.push({ pointer: '/html', message: 'html or text is required' });
  for (const [field, limit] of [
    ['html', CONTENT_LIMITS.htmlBytes],
    ['text', CONTENT_LIMITS.textBytes],
  ] as const) {
    if (utf8Bytes(send[field]) > limit) errors.push({ pointer: `/${field}`, message: `must be at most ${limit / 1024} KB as UTF-8` });
  }
  if (send.from !== undefined) {
    const sender = parseSender(send.from);
    if (!sender || !isAddress(sender.address) || (sender.name?.length ?? 0) > CONTENT_LIMITS.fromNameLength)
      errors.push({ pointer: '/from', message: 'must be an address, or a name and an address as "Name <address>"' });
  }
  // The schema took it: what is wrong is what it says, a 422 like every rule past the schema.
  if (errors.length > 0)
    throw new UnprocessableError(
      'invalid-content',
      `The send has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`,
      errors,
    );
}

/**
 * One content send (POST …/emails/send, a batch's item without email_key, or a mail submitted
 * over SMTP) accepted: what its schema cannot state checked (bodies, sender, headers, copies,
 * send_at, attachments), its From held to the project's verified sender domain, its attachments
 * stored under its new message id, and its trigger built, ready to queue. The first `to` is the
 * recipient; the others are copies shown in the To header. Its `user`, when it gives one, is
 * registered as a trigger's is; without one, nobody is.
 */
export async function acceptContentSend(projectId: string, send: ContentSendRequest, acceptance: ContentAcceptance): Promise<Trigger> {
  const { now } = acceptance;
  const [first, ...furtherTo] = typeof send.to === 'string' ? [send.to] : send.to;
  const recipient = normaliseEmail(first!);
  refuseBadContent(send, acceptance.isAddress);
  if (send.user !== undefined && normaliseEmail(send.user.email) !== recipient)
    throw new UnprocessableError('user-not-recipient', 'The user is the recipient: its email must be the first to address.', [
      { pointer: '/user/email', message: 'must be the first to address' },
    ]);
  refuseReservedHeaders(send.headers);
  refuseBadCopies(recipient, { ...send, to: furtherTo });
  refuseBadSendAt(send.send_at, now);
  const files = prepareAttachments(send.attachments);
  const plan = await acceptance.plan();
  const sender = send.from !== undefined ? parseSender(send.from)! : undefined;
  if (sender && domainOf(sender.address) !== plan.senderDomain)
    throw new UnprocessableError(
      'from-email-not-on-sender-domain',
      `from must be an address on the project's verified sender domain ${plan.senderDomain}, not on ${domainOf(sender.address)}.`,
      [{ pointer: '/from', message: `must be on ${plan.senderDomain}` }],
    );
  const messageId = acceptance.newMessageId();
  if (files.length > 0)
    await acceptance.storeAttachments(
      messageId,
      files.map((f) => f.bytes),
    );
  const user = send.user !== undefined ? { ...send.user, email: recipient } : { email: recipient };
  const command: EmailTriggerCommand = {
    messageId,
    projectId,
    content: {
      subject: send.subject,
      ...(send.html !== undefined ? { html: send.html } : {}),
      ...(send.text !== undefined ? { text: send.text } : {}),
      ...(sender ? { fromEmail: normaliseEmail(sender.address), fromName: sender.name } : {}),
      trackOpens: send.track_opens ?? plan.trackOpens,
      trackClicks: send.track_clicks ?? plan.trackClicks,
    },
    ...(acceptance.source === 'smtp' ? { source: 'smtp' as const } : {}),
    ...(send.user === undefined ? { unregistered: true as const } : {}),
    user,
    data: {},
    acceptedAt: now.toISOString(),
    ...messageOptions(send),
    ...(furtherTo.length > 0 ? { to: furtherTo.map(normaliseEmail) } : {}),
    ...(files.length > 0 ? { attachments: files.map((f) => f.ref) } : {}),
    ...(acceptance.test ? { test: true as const } : {}),
  };
  return { key: userOrderingKey(projectId, { email: recipient }), command };
}
