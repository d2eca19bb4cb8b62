import { createHash } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { ATTACHMENT_LIMITS } from '@postbus/contracts';
import { AppError, NotFoundError, ValidationError } from '@postbus/errors';
import type { MessageLists } from '../model/message-list.repository';
import type { AttachmentStore } from '../model/attachment.repository';
import type { MessageStore } from '../model/message.repository';

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const POSITION = /^\d{1,2}$/;

const positionOf = (raw: string | undefined): number => {
  const position = POSITION.test(raw ?? '') ? Number(raw) : -1;
  if (position < 0 || position >= ATTACHMENT_LIMITS.count) throw new ValidationError('The attachment position is not one a send may have.');
  return position;
};

/** A project's attachments fill its quota: the send is refused whole (its files stored before this one go). */
class AttachmentQuotaError extends AppError {
  constructor() {
    super(
      413,
      'attachment-quota-exceeded',
      "The project's attachment storage is full",
      "This send's attachments would take the project past its attachment storage quota; stored attachments free their space as their messages pass their retention or their recipients are erased.",
    );
  }
}

const idsOf = (params: Record<string, string | undefined>): { projectId: string; messageId: string } => {
  const { projectId = '', messageId = '' } = params;
  if (!ID.test(projectId) || !ID.test(messageId)) throw new ValidationError('The project or message id is malformed.');
  return { projectId, messageId };
};

/**
 * Attachments' content, which travels as bytes and not on the bus: the gateway stores a send's
 * files here, in order, before it publishes the trigger naming them; they are read back for the
 * panel (its frame's inline images, a download). A file read back is the one the send gave (its
 * SHA-256 as the trigger named it) or none: missing chunks (erased, purged) and other bytes alike are a 404. The first file of a message is listed for retention before its
 * bytes are written, so a set whose trigger was never published is purged with the messages of its day.
 * A file that would take its project past ATTACHMENT_QUOTA_BYTES is a 413, and the send's files stored before it go.
 */
export function attachmentsApi(attachments: AttachmentStore, lists: MessageLists, store: MessageStore): RequestHandler {
  const router = express.Router();
  const path = '/internal/projects/:projectId/messages/:messageId/attachments/:position';
  router.put(path, express.raw({ type: 'application/octet-stream', limit: ATTACHMENT_LIMITS.totalBytes }), async (req, res) => {
    const { projectId, messageId } = idsOf(req.params);
    const position = positionOf(req.params['position']);
    if (!Buffer.isBuffer(req.body)) throw new ValidationError('The body must be the attachment as application/octet-stream.');
    if (position === 0) await lists.attachmentsStored(projectId, messageId, new Date());
    if (!(await attachments.store(projectId, messageId, position, req.body))) {
      if (position > 0) await attachments.deleteSets(projectId, [messageId]);
      throw new AttachmentQuotaError();
    }
    res.status(204).end();
  });
  router.get(path, async (req, res) => {
    const { projectId, messageId } = idsOf(req.params);
    const position = positionOf(req.params['position']);
    const ref = (await store.message(projectId, messageId))?.attachments?.[position];
    const bytes = ref ? await attachments.read(messageId, position, ref.size) : null;
    if (!ref || !bytes) throw new NotFoundError('No such attachment of this message.');
    if (createHash('sha256').update(bytes).digest('hex') !== ref.sha256)
      throw new NotFoundError('The stored content of this attachment is not what the send gave.');
    res
      .status(200)
      .set({ 'content-type': ref.contentType, 'content-length': String(bytes.length) })
      .end(bytes);
  });
  return router;
}
