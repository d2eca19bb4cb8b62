import type { EmailTriggerCommand, UserCreateCommand } from '@postbus/contracts';

/**
 * The first trigger for an unknown email registers the user: a trigger is a create carrying what
 * the trigger said about the user (user_id, standard attributes, custom fields).
 */
export function createFromTrigger(trigger: EmailTriggerCommand): UserCreateCommand {
  const { email, user_id: userId, ...fields } = trigger.user as { email: string; user_id?: unknown } & Record<string, unknown>;
  return {
    projectId: trigger.projectId,
    email,
    ...(typeof userId === 'string' ? { userId } : {}),
    ...(Object.keys(fields).length ? { fields } : {}),
  };
}
