import type { ErasureExecuteCommand, UserErasureScheduledEvent } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { refKey } from './fields';
import type { UserErasureStore } from './ports';

export interface UserErasureDeps {
  users: UserErasureStore;
  logger: Logger;
}

/**
 * The users service's part in an erasure (docs/architecture.md#erasure): it shows the request on the user while it is
 * queued, and deletes the user when it runs. Both are repeated (redelivery, and the execute command
 * comes again until every service has confirmed), so both are idempotent. Logs name the erasure,
 * never the person.
 */
export class UserErasure {
  constructor(private readonly deps: UserErasureDeps) {}

  /** user.erasure_scheduled: marks the user, so that reads show the erasure queued. */
  async schedule(event: UserErasureScheduledEvent): Promise<void> {
    const users = await this.deps.users.findErasureTargets(event);
    // An erasure of someone this service does not know still runs: the other services may hold data.
    if (users.length === 0) this.deps.logger.info('erasure scheduled for no known user', { erasureId: event.erasureId });
    const mark = { id: event.erasureId, eraseAt: new Date(event.eraseAt) };
    for (const user of users) await this.deps.users.markErasure(user, mark);
  }

  /** erasure.execute: deletes the user and the commands parked for them; returns what went, by kind. */
  async erase(subject: ErasureExecuteCommand): Promise<Record<string, number>> {
    const before = new Date(subject.before);
    // A user created after the erasure ran is someone new with the same address (the sweep must spare them).
    const users = (await this.deps.users.findErasureTargets(subject)).filter((u) => new Date(u.createdAt) <= before);
    let deleted = 0;
    for (const user of users) if (await this.deps.users.delete(user)) deleted++;
    // Commands parked by any name of the person, including those of a user already deleted by an
    // earlier attempt (their names are then only known from the subject).
    const refs = new Set<string>();
    for (const { email, userId } of [...users, subject]) {
      if (email) refs.add(refKey({ email }));
      if (userId) refs.add(refKey({ userId }));
    }
    const parked = await this.deps.users.unparkAll(subject.projectId, [...refs], before);
    this.deps.logger.info('user erased', { erasureId: subject.erasureId, users: deleted, parkedCommands: parked });
    return { users: deleted, parked_commands: parked };
  }
}
