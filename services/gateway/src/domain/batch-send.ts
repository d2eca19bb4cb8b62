import { createHash, randomBytes } from 'node:crypto';
import {
  normaliseEmail,
  userOrderingKey,
  type AttachmentRef,
  type ContentBatchItem,
  type EmailTriggerCommand,
  type SendBatchItem,
  type SendBatchResult,
  type SendEmailRequest,
} from '@postbus/contracts';
import { AppError, ValidationError, type FieldError } from '@postbus/errors';
import { prepareAttachments } from './attachments';
import { acceptContentSend, type ContentAcceptance, type ContentPlan } from './content-send';
import { messageOptions, refuseBadCopies, refuseBadSendAt, refuseReservedHeaders } from './message-options';
import type { Trigger } from './trigger';
import type { TriggerPlan } from './trigger-catalog';

export interface BatchSendDeps extends Pick<ContentAcceptance, 'source' | 'isAddress'> {
  /** The item's field errors against SendBatchItem (pointers within the item), or none. */
  check: (item: unknown) => FieldError[];
  /** The item's field errors against ContentBatchItem (an item without email_key), or none. */
  checkContent: (item: unknown) => FieldError[];
  /** The catalog's plan for an email of the project; throws an AppError for what the client must fix. */
  resolve: (emailKey: string) => Promise<TriggerPlan>;
  /** The project's plan for content sends; throws an AppError for what the client must fix. */
  resolveContent: () => Promise<ContentPlan>;
  /** Queues the accepted triggers together (one produce request); throws when the bus did not take them. */
  queue: (triggers: Trigger[]) => Promise<void>;
  /** Stores a message's attachments (in order) where the mailer reads them; throws when it could not. */
  storeAttachments: (messageId: string, files: Buffer[]) => Promise<void>;
  /** The message id of the item at `index` (see messageIds). */
  newMessageId: (index: number) => string;
  now: () => Date;
  /** Sent with a test key: every trigger is a test message (see EmailTriggerCommand). */
  test?: boolean;
  /** One rejected item stops the whole batch: nothing is queued (Resend's strict batch validation). */
  allOrNothing?: boolean;
}

/**
 * The `email.trigger` command for one send (a single send or a batch's item) of the email the
 * catalog planned: the recipient's address normalised, no data as `{}`, and only the options it
 * gave; its attachments by reference (their content is stored apart, never on the bus).
 * `test`: sent with a test key, so the mailer simulates its outcome and nobody is registered.
 */
export function triggerFor(
  projectId: string,
  plan: TriggerPlan,
  send: SendEmailRequest,
  messageId: string,
  acceptedAt: string,
  attachments: AttachmentRef[] = [],
  test = false,
): Trigger {
  const user = { ...send.user, email: normaliseEmail(send.user.email) };
  return {
    key: userOrderingKey(projectId, { email: user.email }),
    command: {
      messageId,
      projectId,
      emailId: plan.emailId,
      emailKey: plan.emailKey,
      templateId: plan.templateId,
      templateVersion: plan.templateVersion,
      templateRevision: plan.templateRevision,
      user,
      data: send.data ?? {},
      ...(send.language !== undefined ? { language: send.language } : {}),
      acceptedAt,
      ...messageOptions(send),
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(test ? { test: true as const } : {}),
    },
  };
}

/** The accepted answer's send_at, for a scheduled send. */
export const sendAtOf = (command: EmailTriggerCommand): { send_at?: string } =>
  command.sendAt !== undefined ? { send_at: command.sendAt } : {};

/** A time as 12 hex digits of milliseconds, as UUIDv7 begins: ids that start with it sort by time. */
const timeHex = (ms: number): string => ms.toString(16).padStart(12, '0');

/** A new Idempotency-Key claim's nonce: the claim's time, then 80 random bits. The ids named from it carry that time (see messageIds). */
export const newIdempotencyNonce = (claimedAt: Date): string => `${timeHex(claimedAt.getTime())}${randomBytes(10).toString('hex')}`;

/**
 * The message ids of a send or a batch, by the item's position: `msg_`, then the time the send
 * was accepted (12 hex digits of milliseconds) and 80 bits that make the id unique. Without an
 * Idempotency-Key the bits are random; with one, they are named from the claim's nonce (the
 * gateway's PublicContext) and the time is the claim's, so that every retry of the request names
 * its messages as the first attempt did, and the mailer keeps one message per id. The time is
 * what lets a read find a message's trigger on the bus before the mailer has recorded it (see
 * acceptedMessage).
 */
export const messageIds =
  (idempotencyNonce: string | undefined, now: () => number = Date.now) =>
  (index: number): string =>
    idempotencyNonce === undefined
      ? `msg_${timeHex(now())}${randomBytes(10).toString('hex')}`
      : `msg_${idempotencyNonce.slice(0, 12)}${createHash('sha256').update(`${idempotencyNonce}\n${index}`).digest('hex').slice(0, 20)}`;

/** When a message id says its send was accepted (ms), if it is one of messageIds'. */
export const acceptedTimeOf = (messageId: string): number | undefined => {
  const time = /^msg_([0-9a-f]{12})[0-9a-f]{20}$/.exec(messageId)?.[1];
  return time === undefined ? undefined : parseInt(time, 16);
};

/** What accepting one send needs beyond the send itself. */
export interface SendAcceptance {
  /** The catalog's plan for the email the send names; throws an AppError for what the client must fix. */
  plan: () => Promise<TriggerPlan>;
  /** Stores the send's attachments (in order) under its message id, where the mailer reads them. */
  storeAttachments: (messageId: string, files: Buffer[]) => Promise<void>;
  newMessageId: () => string;
  /** When the send was accepted: its send_at is judged against it. */
  now: Date;
  /** Sent with a test key (see triggerFor). */
  test: boolean;
}

/**
 * One send (a single send or a batch's item) accepted: what its schema cannot state checked (its
 * headers, copies, send_at and attachments), its email planned, its attachments stored under its
 * new message id, and its trigger built, ready to queue.
 */
export async function acceptSend(projectId: string, send: SendEmailRequest, acceptance: SendAcceptance): Promise<Trigger> {
  const { now } = acceptance;
  refuseReservedHeaders(send.headers);
  refuseBadCopies(send.user.email, send);
  refuseBadSendAt(send.send_at, now);
  const files = prepareAttachments(send.attachments);
  const plan = await acceptance.plan();
  const messageId = acceptance.newMessageId();
  if (files.length > 0)
    await acceptance.storeAttachments(
      messageId,
      files.map((f) => f.bytes),
    );
  return triggerFor(
    projectId,
    plan,
    send,
    messageId,
    now.toISOString(),
    files.map((f) => f.ref),
    acceptance.test,
  );
}

/** A rejected item's problem, its pointers located in the whole request body. */
/** A good item of an all-or-nothing batch that another item stopped. */
const NOT_SENT_WITH_THE_REST = new AppError(
  422,
  'batch-not-sent',
  'Not sent',
  'This message is valid, but another message of the batch was refused, and the batch is sent all or nothing.',
);

const rejected = (index: number, error: AppError): SendBatchResult => {
  const problem = error.toProblem();
  return {
    index,
    status: 'rejected',
    error: {
      ...problem,
      ...(problem.errors ? { errors: problem.errors.map((e) => ({ ...e, pointer: `/messages/${index}${e.pointer}` })) } : {}),
    },
  };
};

/**
 * A batch of sends: each item checked on its own (its fields, its email, its headers, its
 * attachments, which are stored before anything is queued), the good
 * ones queued together, and an answer per item in the request's order. A bad item rejects only
 * itself; an unavailable bus rejects the whole batch (nothing was queued), so a retry with the same
 * Idempotency-Key sends what the first try did not.
 */
export async function sendBatch(projectId: string, items: unknown[], deps: BatchSendDeps): Promise<SendBatchResult[]> {
  const plans = new Map<string, Promise<TriggerPlan>>();
  let contentPlan: Promise<ContentPlan> | undefined;
  const now = deps.now();
  const outcomes = await Promise.all(
    items.map(async (raw, index): Promise<SendBatchResult | (Trigger & { index: number })> => {
      try {
        // An item naming an email is a template send; one without email_key brings its content.
        const content = typeof raw === 'object' && raw !== null && !('email_key' in raw);
        const errors = content ? deps.checkContent(raw) : deps.check(raw);
        if (errors.length > 0)
          throw new ValidationError(`The message has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
        const { storeAttachments, test = false, source, isAddress } = deps;
        const newMessageId = () => deps.newMessageId(index);
        if (content) {
          const plan = () => (contentPlan ??= deps.resolveContent());
          const accepted = { plan, storeAttachments, newMessageId, now, test, source, isAddress };
          return { index, ...(await acceptContentSend(projectId, raw as ContentBatchItem, accepted)) };
        }
        const item = raw as SendBatchItem;
        const plan = () => {
          if (!plans.has(item.email_key)) plans.set(item.email_key, deps.resolve(item.email_key));
          return plans.get(item.email_key)!;
        };
        return { index, ...(await acceptSend(projectId, item, { plan, storeAttachments, newMessageId, now, test })) };
      } catch (error) {
        if (error instanceof AppError) return rejected(index, error);
        throw error;
      }
    }),
  );
  const accepted = outcomes.filter((o): o is Trigger & { index: number } => 'command' in o);
  // Nothing queued: the attachments already stored for the good items are never read, and go with the retention.
  if (deps.allOrNothing && accepted.length < outcomes.length)
    return outcomes.map((o) => ('command' in o ? rejected(o.index, NOT_SENT_WITH_THE_REST) : o));
  if (accepted.length > 0) await deps.queue(accepted.map(({ key, command }) => ({ key, command })));
  return outcomes.map((o) =>
    'command' in o ? { index: o.index, status: 'accepted', message_id: o.command.messageId, ...sendAtOf(o.command) } : o,
  );
}
