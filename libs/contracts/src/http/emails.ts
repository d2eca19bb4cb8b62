import { Type, type Static } from '@sinclair/typebox';
import { Email, Nullable, ObjectIdString, Timestamp } from '../common';
import { SenderIdentity } from './shared';

const EmailKey = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$', description: 'the name the API triggers it by, e.g. welcome' });

const EmailSettings = {
  key: EmailKey,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  template_id: ObjectIdString,
  // No schema defaults: request validation fills defaults in, and every PATCH would turn these off.
  track_opens: Type.Optional(Type.Boolean({ description: 'count opens with a pixel; false until set' })),
  track_clicks: Type.Optional(Type.Boolean({ description: "count clicks by rewriting the HTML's links; false until set" })),
  send_to_unsubscribed: Type.Optional(
    Type.Boolean({ description: 'for mail a user must get anyway, such as a password reset; false until set' }),
  ),
  from_email: Type.Optional(Nullable(Email)),
  from_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  reply_to: Type.Optional(Nullable(Email)),
};

export const CreateEmailRequest = Type.Object(EmailSettings, { additionalProperties: false });
export type CreateEmailRequest = Static<typeof CreateEmailRequest>;

export const UpdateEmailRequest = Type.Partial(Type.Object(EmailSettings), { additionalProperties: false, minProperties: 1 });
export type UpdateEmailRequest = Static<typeof UpdateEmailRequest>;

export const TransactionalEmail = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  key: Type.String(),
  name: Type.String(),
  template_id: Type.String(),
  track_opens: Type.Boolean(),
  track_clicks: Type.Boolean(),
  send_to_unsubscribed: Type.Boolean(),
  ...SenderIdentity,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TransactionalEmail = Static<typeof TransactionalEmail>;

export const TransactionalEmailList = Type.Object({ data: Type.Array(TransactionalEmail) });

export const EmailParams = Type.Object({ projectId: ObjectIdString, emailKey: Type.String({ minLength: 1, maxLength: 64 }) });
