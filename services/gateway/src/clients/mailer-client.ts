import type { MessageLog } from '../domain/ports/messages';
import type {
  InternalSuppressedAddresses,
  Message,
  MessageContent,
  MessageList,
  MessageListQuery,
  MessageStats,
  MessageStatsQuery,
  SuppressionList,
  SuppressionListQuery,
} from '@postbus/contracts';
import { ServiceUnavailableError } from '@postbus/errors';
import type { InternalTokens } from '@postbus/http';
import { InternalApiClient, projectPath } from './internal-api-client';

/** Reads the message log (statuses and timelines) and the suppression list from the mailer service's internal API. */
const ATTACHMENT_STORE_TIMEOUT_FACTOR = 3;

export class MailerClient extends InternalApiClient implements MessageLog {
  constructor(baseUrl: string, tokens: InternalTokens, timeoutMs?: number) {
    super('mailer', 'mailer', baseUrl, tokens, timeoutMs);
  }

  /** One page of the project's messages, newest first; the query is forwarded as it is. */
  async listMessages(projectId: string, query: MessageListQuery): Promise<MessageList> {
    const { email, user_id, status, email_key, tag, from, to, test, limit, cursor } = query;
    const page = await this.get<MessageList>(`${projectPath(projectId)}/messages`, {
      email,
      user_id,
      status,
      email_key,
      tag,
      from,
      to,
      test,
      limit,
      cursor,
    });
    // The gateway has checked the project: one the mailer has never seen simply has no messages yet.
    return page ?? { data: [], next_cursor: null };
  }

  /** Counts by status per day, every day of the range (zeros for a project the mailer has not seen). */
  async stats(projectId: string, query: MessageStatsQuery): Promise<MessageStats> {
    const stats = await this.get<MessageStats>(`${projectPath(projectId)}/messages/stats`, { from: query.from, to: query.to });
    if (!stats) throw new ServiceUnavailableError('The mailer service could not answer.', 5);
    return stats;
  }

  /** null for no such message; `content: null` for one that was never rendered. */
  messageContent(projectId: string, messageId: string): Promise<{ content: MessageContent | null; test?: boolean } | null> {
    return this.get(`${projectPath(projectId)}/messages/${encodeURIComponent(messageId)}/content`);
  }

  /**
   * The suppressed ones among a few addresses of the project, each with its reason (the mailer's
   * point reads of its suppression markers): what a Postmark-compatible send answers 406 for.
   */
  async suppressedAmong(projectId: string, emails: string[]): Promise<InternalSuppressedAddresses['data']> {
    if (emails.length === 0) return [];
    const reply = await this.send<InternalSuppressedAddresses>('POST', `${projectPath(projectId)}/suppressions/check`, {
      body: { emails },
    });
    if (!reply.body) throw new ServiceUnavailableError('The mailer service could not answer.', 2);
    return reply.body.data;
  }

  /** One page of the project's suppressions, newest first. */
  async listSuppressions(projectId: string, query: SuppressionListQuery): Promise<SuppressionList> {
    const { email, reason, limit, cursor } = query;
    const page = await this.get<SuppressionList>(`${projectPath(projectId)}/suppressions`, { email, reason, limit, cursor });
    return page ?? { data: [], next_cursor: null };
  }

  /**
   * Stores a send's attachments with the mailer, one after another in their order (the mailer
   * finds a message's set by probing positions), before the trigger naming them is published.
   */
  /**
   * Stores a send's files before its trigger is published. A store writes its chunks behind the
   * other sends' on a busy mailer, so it gets three times the client's timeout: a send refused with
   * a 503 costs the client a retry of every byte.
   */
  async storeAttachments(projectId: string, messageId: string, files: Uint8Array[]): Promise<void> {
    for (const [position, bytes] of files.entries())
      await this.send('PUT', `${projectPath(projectId)}/messages/${encodeURIComponent(messageId)}/attachments/${position}`, {
        body: bytes,
        timeoutMs: this.defaultTimeoutMs * ATTACHMENT_STORE_TIMEOUT_FACTOR,
      });
  }

  /** One attachment's bytes and type (the panel's frame shows inline images), or null for none there. */
  attachment(projectId: string, messageId: string, position: number): Promise<{ contentType: string; bytes: Uint8Array } | null> {
    return this.bytes(`${projectPath(projectId)}/messages/${encodeURIComponent(messageId)}/attachments/${position}`);
  }

  message(projectId: string, messageId: string): Promise<Message | null> {
    return this.get(`${projectPath(projectId)}/messages/${encodeURIComponent(messageId)}`);
  }

  /** Cancels a scheduled message; the mailer's 404 (no such message) and 409 (sent or being sent) are thrown as they are. */
  async cancelMessage(projectId: string, messageId: string): Promise<Message> {
    const reply = await this.send<Message>('POST', `${projectPath(projectId)}/messages/${encodeURIComponent(messageId)}/cancel`);
    if (!reply.body) throw new ServiceUnavailableError('The mailer service could not answer.', 2);
    return reply.body;
  }

  /** Moves a scheduled message to `sendAt` (checked by the caller); the mailer's 404 and 409 (sent, due, canceled) are thrown as they are. */
  async rescheduleMessage(projectId: string, messageId: string, sendAt: string): Promise<Message> {
    const reply = await this.send<Message>('PATCH', `${projectPath(projectId)}/messages/${encodeURIComponent(messageId)}/schedule`, {
      body: { send_at: sendAt },
    });
    if (!reply.body) throw new ServiceUnavailableError('The mailer service could not answer.', 2);
    return reply.body;
  }
}
