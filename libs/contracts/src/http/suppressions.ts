import { Type, type Static } from '@sinclair/typebox';
import { SUPPRESSION_REASONS } from '../values';
import { Email, Nullable, ObjectIdString, pageOf, PageParams, StringEnum, Timestamp } from '../common';

export const SUPPRESSION_REASON_MEANINGS =
  'hard_bounce: its mail system said it takes no mail; soft_bounce_limit: too many of its messages soft-bounced; complaint: its owner reported a message as spam; unsubscribed; manual: the client suppressed it';

/** One reason an address gets no mail, since when, and the message that gave it. */
export const SuppressionCause = Type.Object({
  reason: StringEnum(SUPPRESSION_REASONS, { description: SUPPRESSION_REASON_MEANINGS }),
  created_at: Timestamp,
  message_id: Nullable(Type.String({ description: 'the message whose bounce or complaint gave this reason' })),
});
export type SuppressionCause = Static<typeof SuppressionCause>;

/**
 * An address of a project that gets no mail, and why (`unsubscribed` holds only for emails not sent
 * to the unsubscribed): every reason it has, and the strongest of them.
 */
export const Suppression = Type.Object({
  email: Type.String(),
  reason: StringEnum(SUPPRESSION_REASONS, {
    description: `the strongest of its reasons (complaint, then hard_bounce, soft_bounce_limit, manual, unsubscribed): a complaint is never lifted. ${SUPPRESSION_REASON_MEANINGS}`,
  }),
  created_at: Type.String({
    format: 'date-time',
    description: 'since when the address is suppressed: its first reason (the list is ordered by it)',
  }),
  message_id: Nullable(Type.String({ description: 'the message whose bounce or complaint gave the strongest reason' })),
  reasons: Type.Array(SuppressionCause, { description: 'every reason the address has, oldest first, each once' }),
});
export type Suppression = Static<typeof Suppression>;

export const SuppressionList = pageOf(Suppression);
export type SuppressionList = Static<typeof SuppressionList>;

export const SuppressionListQuery = Type.Object(
  {
    email: Type.Optional(Email),
    reason: Type.Optional(StringEnum(SUPPRESSION_REASONS)),
    ...PageParams,
  },
  { additionalProperties: false },
);
export type SuppressionListQuery = Static<typeof SuppressionListQuery>;

export const CreateSuppressionRequest = Type.Object(
  { email: Email, reason: Type.Literal('manual', { description: 'the only reason a client gives; the others come from the mail itself' }) },
  { additionalProperties: false },
);
export type CreateSuppressionRequest = Static<typeof CreateSuppressionRequest>;

export const SuppressionParams = Type.Object({ projectId: ObjectIdString, email: Email });
