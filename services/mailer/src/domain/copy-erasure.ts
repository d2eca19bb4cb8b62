import { ERASED_COPY_ADDRESS } from '@postbus/contracts';
import type { EventDoc, MessageDoc } from './message-records';

const erased = <T extends { email: string }>(items: T[] | undefined, email: string): T[] | undefined =>
  items?.map((item) => (item.email === email ? { ...item, email: ERASED_COPY_ADDRESS } : item));

/**
 * A message with an erased person's address gone from its copies: where it stood as a cc or bcc,
 * ERASED_COPY_ADDRESS stands (the message keeps how many copies it had). Undefined when the
 * address is not one of its copies (a repeat of the erasure, or another person's message).
 */
export function withoutCopy(message: MessageDoc, email: string): MessageDoc | undefined {
  if (!message.to?.includes(email) && !message.cc?.includes(email) && !message.bcc?.includes(email)) return undefined;
  const without = (addresses: string[] | undefined) => addresses?.map((a) => (a === email ? ERASED_COPY_ADDRESS : a));
  return {
    ...message,
    ...(message.to ? { to: without(message.to)! } : {}),
    ...(message.cc ? { cc: without(message.cc)! } : {}),
    ...(message.bcc ? { bcc: without(message.bcc)! } : {}),
  };
}

/**
 * The entries of a message's timeline that name the address as a copy (dropped, delivered, or
 * reported on), redacted the same way; the others are left out, as they need no write. A report's
 * key, which a hash of the address made unique, becomes unique by the entry's id instead.
 */
export function entriesWithoutCopy(events: EventDoc[], email: string): EventDoc[] {
  return events.flatMap((e) => {
    const names =
      e.copy?.email === email || e.droppedCopies?.some((c) => c.email === email) || e.deliveredCopies?.some((c) => c.email === email);
    if (!names) return [];
    return [
      {
        ...e,
        ...(e.droppedCopies ? { droppedCopies: erased(e.droppedCopies, email)! } : {}),
        ...(e.deliveredCopies ? { deliveredCopies: erased(e.deliveredCopies, email)! } : {}),
        ...(e.copy?.email === email ? { copy: { ...e.copy, email: ERASED_COPY_ADDRESS }, key: `${e.event}:erased:${e._id}` } : {}),
      },
    ];
  });
}
