import type { EmailTriggerCommand, UserCreateCommand } from '@postbus/contracts';

/**
 * Whether a trigger registers its user: a test message (sent with a test key) leaves the client's
 * users as they are, as it leaves everything but its own record; so does a content send that named
 * no user (a mail an app sent to an address, over SMTP or the API).
 */
export const registersUser = (trigger: EmailTriggerCommand): boolean => trigger.test !== true && trigger.unregistered !== true;

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
