import {
  MESSAGE_OPTION_LIMITS,
  normaliseEmail,
  RESERVED_HEADERS,
  reservedHeaderNames,
  SEND_AT_LIMITS,
  type EmailTriggerCommand,
  type SendEmailRequest,
} from '@postbus/contracts';
import { UnprocessableError, type FieldError } from '@postbus/errors';

type Options = Pick<SendEmailRequest, 'reply_to' | 'cc' | 'bcc' | 'headers' | 'tags' | 'metadata' | 'send_at'>;

const DAY_MS = 86_400_000;

/**
 * Refuses a `send_at` (the schema has checked it is RFC 3339) in the past or more than
 * SEND_AT_LIMITS.maxAheadDays ahead, both with SEND_AT_LIMITS.clockSkewMs of slack for the
 * client's clock.
 */
export function refuseBadSendAt(sendAt: Options['send_at'], now: Date): void {
  if (sendAt === undefined) return;
  const at = Date.parse(sendAt);
  const { maxAheadDays, clockSkewMs } = SEND_AT_LIMITS;
  const problem =
    at < now.getTime() - clockSkewMs
      ? 'is in the past'
      : at > now.getTime() + maxAheadDays * DAY_MS + clockSkewMs
        ? `is more than ${maxAheadDays} days ahead`
        : undefined;
  if (problem)
    throw new UnprocessableError('invalid-send-at', `send_at ${problem}: schedule a send from now up to ${maxAheadDays} days ahead.`, [
      { pointer: '/send_at', message: problem },
    ]);
}

/**
 * Refuses the reserved headers (see RESERVED_HEADERS; the schema has checked their form): a
 * client's own From, Sender or List-Unsubscribe would break signing, DMARC and the unsubscribe it
 * owes its recipients, a Resent-From or an ARC-Seal would forge who sent or checked the message.
 * Reply-To and the copies have fields of their own, which the detail points to.
 */
export function refuseReservedHeaders(headers: Options['headers']): void {
  const reserved = reservedHeaderNames(Object.keys(headers ?? {}));
  if (reserved.length === 0) return;
  throw new UnprocessableError(
    'reserved-header',
    `A send may not set ${reserved.join(', ')}: Postbus, the relays or the receivers set these headers (reserved: ${RESERVED_HEADERS.join(', ')}). A reply address goes in reply_to, copies in cc and bcc.`,
    reserved.map((name) => ({ pointer: `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: 'is a reserved header' })),
  );
}

/**
 * Refuses copies past the limit of further to, cc and bcc addresses together (the schema bounds
 * each list alone), and an address given twice, as any kind or as the recipient (compared
 * normalised): the relay would get it twice in one envelope, and a cc that is also a bcc is no
 * longer blind. `to`: a content send's further To addresses, at their place in its `to` list.
 */
export function refuseBadCopies(recipient: string, o: Pick<Options, 'cc' | 'bcc'> & { to?: string[] }): void {
  const copies = [
    ...(o.to ?? []).map((a, i) => ({ a, at: `/to/${i + 1}` })),
    ...(o.cc ?? []).map((a, i) => ({ a, at: `/cc/${i}` })),
    ...(o.bcc ?? []).map((a, i) => ({ a, at: `/bcc/${i}` })),
  ];
  const limit = MESSAGE_OPTION_LIMITS.copies;
  if (copies.length > limit) {
    const pointer = (o.bcc ?? []).length > 0 ? '/bcc' : (o.cc ?? []).length > 0 ? '/cc' : '/to';
    throw new UnprocessableError(
      'too-many-copies',
      `A message goes to at most ${limit + 1} addresses across to, cc and bcc; this one names ${copies.length + 1}.`,
      [{ pointer, message: `to, cc and bcc together must have at most ${limit + 1} addresses` }],
    );
  }
  const seen = new Set([normaliseEmail(recipient)]);
  const repeated: FieldError[] = [];
  for (const { a, at } of copies) {
    const address = normaliseEmail(a);
    if (seen.has(address)) repeated.push({ pointer: at, message: 'names the recipient or another copy again' });
    seen.add(address);
  }
  if (repeated.length > 0)
    throw new UnprocessableError('repeated-copy', 'A to, cc or bcc address repeats the recipient or another copy.', repeated);
}

/** The trigger command's fields for a send's options: only those it gave, so a plain send's command stays as small as before. */
export const messageOptions = (
  o: Options,
): Pick<EmailTriggerCommand, 'replyTo' | 'cc' | 'bcc' | 'headers' | 'tags' | 'metadata' | 'sendAt'> => ({
  ...(o.reply_to !== undefined ? { replyTo: o.reply_to.trim() } : {}),
  ...(o.cc !== undefined && o.cc.length > 0 ? { cc: o.cc.map(normaliseEmail) } : {}),
  ...(o.bcc !== undefined && o.bcc.length > 0 ? { bcc: o.bcc.map(normaliseEmail) } : {}),
  ...(o.headers !== undefined && Object.keys(o.headers).length > 0 ? { headers: o.headers } : {}),
  ...(o.tags !== undefined && o.tags.length > 0 ? { tags: o.tags } : {}),
  ...(o.metadata !== undefined && Object.keys(o.metadata).length > 0 ? { metadata: o.metadata } : {}),
  ...(o.send_at !== undefined ? { sendAt: new Date(o.send_at).toISOString() } : {}),
});
