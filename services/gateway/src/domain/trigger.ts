import type { EmailTriggerCommand } from '@postbus/contracts';

/** An `email.trigger` command and its ordering key (the recipient's), ready to queue. */
export interface Trigger {
  key: string;
  command: EmailTriggerCommand;
}
