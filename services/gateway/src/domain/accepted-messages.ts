import { attachmentInfoOf, type EmailTriggerCommand, type Message } from '@postbus/contracts';

/**
 * What a send's 200 promised, kept until the mailer has recorded the message, so that a read of the
 * id in between answers it as `accepted` rather than not found (docs/architecture.md, "Reading a
 * message"): the message as accepted, nothing of its delivery.
 */
export interface AcceptedMessage {
  id: string;
  projectId: string;
  emailKey: string;
  /** The recipient, normalised. */
  email: string;
  /** The user_id the send gave, if any. */
  userId?: string;
  acceptedAt: Date;
  test?: true;
  sendAt?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  cc?: string[];
  bcc?: string[];
  attachments?: Array<{ filename: string; contentType: string; size: number; contentId?: string }>;
}

/** Where the gateway keeps its accepted messages (model/accepted-message.repository.ts). */
export interface AcceptedMessages {
  record(messages: AcceptedMessage[]): Promise<void>;
  find(projectId: string, id: string): Promise<AcceptedMessage | null>;
}

/** The record of an accepted trigger: only the options it gave. */
export function acceptedRecordOf(command: EmailTriggerCommand): AcceptedMessage {
  const userId = command.user['user_id'];
  return {
    id: command.messageId,
    projectId: command.projectId,
    emailKey: command.emailKey,
    email: String(command.user['email']),
    ...(typeof userId === 'string' ? { userId } : {}),
    acceptedAt: new Date(command.acceptedAt),
    ...(command.test ? { test: true as const } : {}),
    ...(command.sendAt !== undefined ? { sendAt: command.sendAt } : {}),
    ...(command.tags ? { tags: command.tags } : {}),
    ...(command.metadata ? { metadata: command.metadata } : {}),
    ...(command.cc ? { cc: command.cc } : {}),
    ...(command.bcc ? { bcc: command.bcc } : {}),
    ...(command.attachments
      ? {
          // The hash stays out: it is checked when the mailer reads the bytes back, never read.
          attachments: command.attachments.map(({ sha256: _hash, ...info }) => info),
        }
      : {}),
  };
}

/** An accepted message as a read answers it before the mailer has recorded it: `accepted`, with an empty timeline. */
export function acceptedMessageView(message: AcceptedMessage): Message {
  const at = message.acceptedAt.toISOString();
  return {
    id: message.id,
    project_id: message.projectId,
    email_key: message.emailKey,
    email: message.email,
    user_id: message.userId ?? null,
    status: 'accepted',
    subject: null,
    opened: false,
    clicked: false,
    opens: 0,
    clicks: 0,
    tags: message.tags ?? [],
    metadata: message.metadata ?? {},
    attachments: (message.attachments ?? []).map(attachmentInfoOf),
    ...(message.sendAt !== undefined ? { send_at: message.sendAt } : {}),
    test: message.test === true,
    ...(message.cc ? { cc: message.cc } : {}),
    ...(message.bcc ? { bcc: message.bcc } : {}),
    accepted_at: at,
    created_at: at,
    updated_at: at,
    timeline: [],
  };
}

export interface RecordingOptions {
  /** How long a send waits for its record while the store answers. */
  waitMs: number;
  /** Records not yet stored, past which new ones are not written (the store has fallen behind). */
  maxPending: number;
  onError: (error: unknown, records: number) => void;
}

/**
 * Records accepted messages without ever failing a send: Kafka holds the send durably, and the
 * record only serves reads until the mailer has its own. A send waits for its record (so a read
 * straight after the 200 finds it) at most `waitMs`, and not at all while the store is failing or
 * slow, until a record is stored again: a database outage costs reads their `accepted` answer, never
 * a send its latency.
 */
export function recordAccepted(
  store: Pick<AcceptedMessages, 'record'>,
  options: RecordingOptions,
): (records: AcceptedMessage[]) => Promise<void> {
  let pending = 0;
  let failing = false;
  return async (records) => {
    if (records.length === 0) return;
    if (pending + records.length > options.maxPending) {
      options.onError(new Error(`${pending} accepted messages are waiting to be recorded`), records.length);
      return;
    }
    pending += records.length;
    const stored = store.record(records).then(
      () => {
        failing = false;
      },
      (error: unknown) => {
        failing = true;
        options.onError(error, records.length);
      },
    );
    void stored.finally(() => {
      pending -= records.length;
    });
    if (failing) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        failing = true;
        resolve();
      }, options.waitMs);
    });
    await Promise.race([stored, late]).finally(() => clearTimeout(timer));
  };
}
