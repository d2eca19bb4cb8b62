import { RESERVED_HEADERS, reservedHeaderNames, type EmailTriggerCommand, type SendEmailRequest } from '@postbus/contracts';
import { UnprocessableError } from '@postbus/errors';

type Options = Pick<SendEmailRequest, 'reply_to' | 'headers' | 'tags' | 'metadata'>;

/**
 * Refuses headers Postbus sets itself (the schema has checked their form): a client's own From or
 * List-Unsubscribe would break signing, the return path and the unsubscribe it owes its recipients.
 */
export function refuseReservedHeaders(headers: Options['headers']): void {
  const reserved = reservedHeaderNames(Object.keys(headers ?? {}));
  if (reserved.length === 0) return;
  throw new UnprocessableError(
    'reserved-header',
    `Postbus sets ${reserved.join(', ')} itself; a send may not (reserved: ${RESERVED_HEADERS.join(', ')}).`,
    reserved.map((name) => ({ pointer: `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: 'is set by Postbus' })),
  );
}

/** The trigger command's fields for a send's options: only those it gave, so a plain send's command stays as small as before. */
export const messageOptions = (o: Options): Pick<EmailTriggerCommand, 'replyTo' | 'headers' | 'tags' | 'metadata'> => ({
  ...(o.reply_to !== undefined ? { replyTo: o.reply_to.trim() } : {}),
  ...(o.headers !== undefined && Object.keys(o.headers).length > 0 ? { headers: o.headers } : {}),
  ...(o.tags !== undefined && o.tags.length > 0 ? { tags: o.tags } : {}),
  ...(o.metadata !== undefined && Object.keys(o.metadata).length > 0 ? { metadata: o.metadata } : {}),
});
