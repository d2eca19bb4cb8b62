import {
  Topics,
  type ContentSendRequest,
  type SendAccepted,
  type SendBatchResult,
  type SendEmailRequest,
  type SendSource,
} from '@postbus/contracts';
import type { FieldError } from '@postbus/errors';
import { acceptSend, messageIds, sendAtOf, sendBatch } from './batch-send';
import { acceptContentSend } from './content-send';
import type { BulkCommandPublisher } from './ports/commands';
import type { Trigger } from './trigger';
import type { TriggerCatalog } from './trigger-catalog';

/** Who sends, and how the request came: what every send needs of its caller. */
export interface SendCaller {
  clientId: string;
  /** Sent with a test key (scope test): the mailer simulates the outcome. */
  test: boolean;
  source: SendSource;
  requestId: string;
  /** With an Idempotency-Key: what the send creates is named from it (see route.ts). */
  idempotencyNonce?: string;
}

export interface SendsDeps {
  catalog: Pick<TriggerCatalog, 'resolve' | 'resolveContent'>;
  commands: BulkCommandPublisher;
  /** Stores a message's attachments (in order) with the mailer, before its trigger is published. */
  storeAttachments: (projectId: string, messageId: string, files: Buffer[]) => Promise<void>;
  /** A batch item's field errors against the template send's schema (pointers within the item), or none. */
  checkTemplateItem: (item: unknown) => FieldError[];
  /** A batch item's field errors against the content send's schema, or none. */
  checkContentItem: (item: unknown) => FieldError[];
  /** Whether an address has the form of one (the schemas' email format). */
  isAddress: (address: string) => boolean;
}

/**
 * The one accept path of every send: the /v1 routes, SMTP submission (through them) and the
 * Postmark- and Resend-compatible APIs all come here, so a send is checked, stored and queued
 * the same way whichever door it came through.
 */
export class Sends {
  constructor(private readonly deps: SendsDeps) {}

  /** A send of one of the project's emails (its template, by the email's key). */
  async template(caller: SendCaller, projectId: string, emailKey: string, body: SendEmailRequest): Promise<SendAccepted> {
    const { catalog, storeAttachments, commands } = this.deps;
    const { key, command } = await acceptSend(projectId, body, {
      plan: () => catalog.resolve(caller.clientId, projectId, emailKey),
      storeAttachments: (messageId, files) => storeAttachments(projectId, messageId, files),
      newMessageId: () => messageIds(caller.idempotencyNonce)(0),
      now: new Date(),
      test: caller.test,
    });
    await commands.send(Topics.EmailCommands, 'email.trigger', key, command, caller.requestId);
    return accepted(caller, command.messageId, sendAtOf(command));
  }

  /** A send with its content (no stored template). */
  async content(caller: SendCaller, projectId: string, body: ContentSendRequest): Promise<SendAccepted> {
    const { catalog, storeAttachments, commands, isAddress } = this.deps;
    const { key, command } = await acceptContentSend(projectId, body, {
      plan: () => catalog.resolveContent(caller.clientId, projectId),
      storeAttachments: (messageId, files) => storeAttachments(projectId, messageId, files),
      newMessageId: () => messageIds(caller.idempotencyNonce)(0),
      now: new Date(),
      test: caller.test,
      source: caller.source,
      isAddress,
    });
    await commands.send(Topics.EmailCommands, 'email.trigger', key, command, caller.requestId);
    return accepted(caller, command.messageId, sendAtOf(command));
  }

  /**
   * Up to 500 sends at once (an item with `email_key` sends that email, one without is a content
   * send), each accepted or rejected on its own, in order; the accepted ones go to the bus together.
   * `allOrNothing`: one rejected item rejects them all, and nothing is queued.
   */
  batch(caller: SendCaller, projectId: string, items: unknown[], { allOrNothing = false } = {}): Promise<SendBatchResult[]> {
    const { catalog, storeAttachments, commands, isAddress, checkTemplateItem, checkContentItem } = this.deps;
    return sendBatch(projectId, items, {
      check: checkTemplateItem,
      checkContent: checkContentItem,
      resolve: (emailKey) => catalog.resolve(caller.clientId, projectId, emailKey),
      resolveContent: () => catalog.resolveContent(caller.clientId, projectId),
      source: caller.source,
      isAddress,
      queue: async (triggers: Trigger[]) => {
        await commands.sendAll(
          Topics.EmailBulk,
          'email.bulk_trigger',
          triggers.map(({ key, command }) => ({ key, data: command })),
          caller.requestId,
        );
      },
      storeAttachments: (messageId, files) => storeAttachments(projectId, messageId, files),
      newMessageId: messageIds(caller.idempotencyNonce),
      now: () => new Date(),
      test: caller.test,
      allOrNothing,
    });
  }
}

const accepted = (caller: SendCaller, messageId: string, sendAt: { send_at?: string }): SendAccepted => ({
  status: 'accepted',
  request_id: caller.requestId,
  message_id: messageId,
  ...sendAt,
});
