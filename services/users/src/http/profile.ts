import type { UserProfile } from '@postbus/contracts';
import type { UserRecord } from '../domain/records';

/** The public shape of a user (docs/architecture.md#the-public-api). */
export function toProfile(user: UserRecord): UserProfile {
  return {
    id: String(user._id),
    project_id: user.projectId,
    email: user.email,
    user_id: user.userId,
    name: user.name,
    country: user.country,
    language: user.language,
    gender: user.gender,
    age: user.age,
    fields: user.fields ?? {},
    subscription: {
      status: user.unsubscribedAt ? 'unsubscribed' : 'subscribed',
      unsubscribed_at: user.unsubscribedAt ? new Date(user.unsubscribedAt).toISOString() : null,
      reason: user.unsubscribeReason,
    },
    // Users stored before erasures existed have no such field.
    erasure: user.erasure ? { id: user.erasure.id, erase_at: new Date(user.erasure.eraseAt).toISOString() } : null,
    created_at: new Date(user.createdAt).toISOString(),
    updated_at: new Date(user.updatedAt).toISOString(),
  };
}
