import type { ErasureDoc } from '../src/domain/records';

/**
 * An erasure as the service records its request: queued, of the person by email (and `userId`),
 * requested and created `minute` minutes into 1 January 2026 and due two days later.
 */
export const queuedErasure = ({
  id,
  projectId,
  email,
  userId = null,
  minute,
}: {
  id: string;
  projectId: string;
  email: string;
  userId?: string | null;
  minute: number;
}): ErasureDoc => ({
  _id: id,
  projectId,
  status: 'queued',
  subjectId: null,
  email,
  userId,
  emailHmac: null,
  requestedAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
  eraseAt: new Date(Date.UTC(2026, 0, 3, 0, minute)),
  executedAt: null,
  completedAt: null,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
});
