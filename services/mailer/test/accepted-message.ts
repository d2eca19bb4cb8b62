import type { MessageDoc } from '../src/domain/message-records';

/** A message as the mailer accepts it from a trigger of the `welcome` email: what the integration tests store and send. */
export const acceptedMessage = ({
  id,
  projectId,
  email,
  userId = null,
  emailKey = 'welcome',
  acceptedAt = new Date(),
}: {
  id: string;
  projectId: string;
  email: string;
  userId?: string | null;
  emailKey?: string;
  acceptedAt?: Date;
}): MessageDoc => ({
  _id: id,
  projectId,
  emailId: `e-${emailKey}`,
  emailKey,
  templateId: 't1',
  templateVersion: 1,
  email,
  userId,
  user: { email },
  data: {},
  acceptedAt,
  createdAt: acceptedAt,
});
