import type { Message, MessageContent } from '@postbus/contracts';
import type { AcceptedMessages } from './accepted-messages';
import type { MessageLog } from './ports/messages';

/** Who reads: a test key reads only test messages (any other is, to it, one that does not exist). */
export interface ReadCaller {
  test: boolean;
}

const readable = (caller: ReadCaller, message: { test?: boolean }): boolean => !caller.test || message.test === true;

/**
 * The one read of a message, for the /v1 routes and the compatible APIs alike: the mailer's
 * record, or, before the mailer recorded it, the message as accepted (read from the bus).
 */
export class MessageReads {
  constructor(
    private readonly log: MessageLog,
    private readonly accepted: Pick<AcceptedMessages, 'recordedOrAccepted'>,
  ) {}

  /** The message, or null when there is none the caller may read. */
  async read(caller: ReadCaller, projectId: string, messageId: string): Promise<Message | null> {
    const found = await this.accepted.recordedOrAccepted(projectId, messageId, () => this.log.message(projectId, messageId));
    return found && readable(caller, found) ? found : null;
  }

  /** The message as the mailer recorded it (never only accepted), or null when there is none the caller may read. */
  async recorded(caller: ReadCaller, projectId: string, messageId: string): Promise<Message | null> {
    const found = await this.log.message(projectId, messageId);
    return found && readable(caller, found) ? found : null;
  }

  /**
   * The rendered email: undefined when there is no message the caller may read, null when it was
   * not rendered (still queued, or suppressed or failed before rendering).
   */
  async content(caller: ReadCaller, projectId: string, messageId: string): Promise<MessageContent | null | undefined> {
    const found = await this.log.messageContent(projectId, messageId);
    if (!found || !readable(caller, found)) return undefined;
    return found.content;
  }

  /** Cancels a scheduled message (see MessageLog.cancelMessage). */
  cancel(projectId: string, messageId: string): Promise<Message> {
    return this.log.cancelMessage(projectId, messageId);
  }
}
