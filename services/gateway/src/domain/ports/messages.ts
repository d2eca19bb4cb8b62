import type { Message, MessageContent } from '@postbus/contracts';

/** The message log, which the mailer keeps: what the gateway reads of it and asks of it. */
export interface MessageLog {
  /** A message as the mailer recorded it; null when it has none by that id in the project. */
  message(projectId: string, messageId: string): Promise<Message | null>;
  /** A message's rendered email (null content: not rendered); null when there is no such message. */
  messageContent(projectId: string, messageId: string): Promise<{ content: MessageContent | null; test?: boolean } | null>;
  /** Cancels a scheduled message; a ConflictError when it is sent, being sent, or was never scheduled. */
  cancelMessage(projectId: string, messageId: string): Promise<Message>;
}
