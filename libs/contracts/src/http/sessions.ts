import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../common';

export const Session = Type.Object({
  token: Type.String({ description: 'send as Authorization: Bearer <token>' }),
  token_type: Type.Literal('Bearer'),
  expires_at: Timestamp,
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk')]),
});
export type Session = Static<typeof Session>;

export const CookieSession = Type.Object({
  token_type: Type.Literal('Cookie', {
    description:
      'the session is in the HttpOnly postbus_session cookie this answer sets (__Host-postbus_session over https); it is never in the body',
  }),
  expires_at: Timestamp,
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk')]),
});
export type CookieSession = Static<typeof CookieSession>;

/** Who the credentials of a request are: what the admin panel shows and how it knows it is signed in. */
export const AdminSession = Type.Object({
  client_id: Type.String(),
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk')]),
  via: Type.Union([Type.Literal('key'), Type.Literal('session')], { description: 'an API key, or an admin session (Bearer or cookie)' }),
});
export type AdminSession = Static<typeof AdminSession>;

/** What an API key is: any key may ask, so a tool (the SMTP submission service at login) can check one before it relies on it. */
export const WhoAmI = Type.Object({
  client_id: Type.String(),
  key_id: Type.String(),
  scope: Type.Union([Type.Literal('full'), Type.Literal('sdk'), Type.Literal('test')]),
  project_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'the project the credentials named (Basic with a project id as the user name), which they act on alone; null for a client id',
  }),
});
export type WhoAmI = Static<typeof WhoAmI>;
