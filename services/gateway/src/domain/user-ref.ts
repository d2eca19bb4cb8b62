import { normaliseEmail, type UserRef } from '@postbus/contracts';

/** The person a request names: by address (normalised) when it gives one, else by user_id (the body's schema asks for one of them). */
export const userRefOf = (body: { email?: string; user_id?: string }): UserRef =>
  body.email !== undefined ? { email: normaliseEmail(body.email) } : { userId: body.user_id ?? '' };
