import type { UserProfile } from '@postbus/contracts';
import type { UserDoc } from '../model/user.schema';

/** The public shape of a user (DESIGN.md §2, Reads). */
export function toProfile(user: UserDoc): UserProfile {
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
    created_at: new Date(user.createdAt).toISOString(),
    updated_at: new Date(user.updatedAt).toISOString(),
  };
}
