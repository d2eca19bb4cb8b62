import type { Publisher, MessageContext } from '@postbus/bus';
import {
  Topics,
  userOrderingKey,
  type MessageData,
  type MessageTypeOn,
  type UserCreateCommand,
  type UserRef,
  type UserResubscribeCommand,
  type UserUnsubscribeCommand,
  type UserUpdateCommand,
} from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { fieldsThatChange, planFieldChanges, refKey } from './fields';
import type { NewUser, UserCommandStore } from './ports';
import type { ParkedCommand, UserRecord } from './records';

type WaitingCommand =
  | { type: 'user.update'; data: UserUpdateCommand }
  | { type: 'user.unsubscribe'; data: UserUnsubscribeCommand }
  | { type: 'user.resubscribe'; data: UserResubscribeCommand };

interface Origin {
  commandId: string;
  requestId: string | undefined;
}

export interface UserCommandsDeps {
  users: UserCommandStore;
  publisher: Publisher;
  logger: Logger;
  /** How long an update for an unknown user waits for the user's create. */
  retryWindowMs: number;
  /**
   * Whether every create published before `time` has been handled (the users group's progress on
   * the topics that carry creates). Absent: the window alone decides, as if the group kept up.
   */
  createsHandledUpTo?: (time: Date) => Promise<boolean>;
  now?: () => Date;
}

function newUser(cmd: UserCreateCommand, commandId: string): NewUser {
  const changes = planFieldChanges(cmd.fields ?? {});
  const userId = changes.userId !== undefined ? changes.userId : (cmd.userId ?? null);
  delete changes.userId;
  return { projectId: cmd.projectId, email: cmd.email, userId, createdBy: commandId, changes };
}

/**
 * What the users service does with each command. Delivery is at-least-once, so every step is
 * idempotent, and every event id derives from the command id (consumers dedupe on it).
 */
export class UserCommands {
  private readonly now: () => Date;

  constructor(private readonly deps: UserCommandsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(cmd: UserCreateCommand, ctx: MessageContext): Promise<void> {
    const origin = { commandId: ctx.id, requestId: ctx.requestId };
    const user = newUser(cmd, ctx.id);
    // A known user (every trigger after the first) costs two point reads here, no write.
    let existing = await this.deps.users.findByRef(cmd.projectId, { email: cmd.email });
    if (!existing) {
      let result = await this.deps.users.insert(user);
      if (result === 'user_id_taken') {
        await this.reject(cmd.projectId, { email: cmd.email }, 'user.create', origin, 'user_id_taken');
        result = await this.deps.users.insert({ ...user, userId: null });
      }
      // Commands parked for a new user are applied by the sweep within a second (or first, by the
      // user's next command): looking for them here would cost every create more reads.
      if (result !== 'exists' && result !== 'user_id_taken') return this.emitCreated(result, origin);
      if (result === 'exists') existing = await this.deps.users.findByRef(cmd.projectId, { email: cmd.email });
      if (!existing) return;
    }
    if (existing.createdBy === ctx.id) {
      // This very command created the user before a crash: its user_id key or its event may be missing.
      await this.deps.users.claimKeys(existing);
      return this.emitCreated(existing, origin);
    }
    await this.drainParked(existing); // commands accepted before this create go first
    // Creating a user that exists merges what the create carries, like an update, where it differs.
    const merge = fieldsThatChange(existing, { ...(cmd.fields ?? {}), ...(cmd.userId !== undefined ? { user_id: cmd.userId } : {}) });
    if (Object.keys(merge).length > 0) await this.applyUpdate(existing, { user: { email: cmd.email }, fields: merge }, origin);
  }

  /**
   * Many creates in one insert; the ones that meet an existing email or user_id (or repeat an
   * email within the run) are returned for create() to handle one by one.
   */
  async createMany(items: { data: UserCreateCommand; ctx: MessageContext }[]): Promise<number[]> {
    const { inserted, notInserted } = await this.deps.users.insertMany(items.map(({ data, ctx }) => newUser(data, ctx.id)));
    const origins = new Map(items.map(({ ctx }) => [ctx.id, { commandId: ctx.id, requestId: ctx.requestId }]));
    await Promise.all(inserted.map((user) => this.emitCreated(user, origins.get(user.createdBy ?? '')!)));
    return notInserted;
  }

  async update(cmd: UserUpdateCommand, ctx: MessageContext): Promise<void> {
    await this.whenUserExists({ type: 'user.update', data: cmd }, ctx, (user, origin) => this.applyUpdate(user, cmd, origin));
  }

  async unsubscribe(cmd: UserUnsubscribeCommand, ctx: MessageContext): Promise<void> {
    await this.whenUserExists({ type: 'user.unsubscribe', data: cmd }, ctx, (user, origin) => this.applyUnsubscribe(user, cmd, origin));
  }

  /** The client lifted the user's unsubscribe (asserting the recipient's consent): subscribed again. */
  async resubscribe(cmd: UserResubscribeCommand, ctx: MessageContext): Promise<void> {
    await this.whenUserExists({ type: 'user.resubscribe', data: cmd }, ctx, (user) => this.applyResubscribe(user, cmd));
  }

  /** Retries parked commands: applies those whose user now exists, rejects those that waited long enough (see waitedEnough). */
  async sweepParked(limit = 100): Promise<number> {
    let handled = 0;
    const waitedEnough = this.waitedEnough();
    for (const parked of await this.deps.users.oldestParked(limit)) {
      const waiting = parked as unknown as WaitingCommand & ParkedCommand;
      const user = await this.deps.users.findByRef(parked.projectId, waiting.data.user);
      if (user) {
        await this.drainParked(user);
        // Parked under a ref whose list lost it (a trim raced the park): applied on its own.
        if (await this.deps.users.parkedById(parked.commandId)) await this.applyParked(user, parked);
        handled++;
      } else if (await waitedEnough(waiting.data.acceptedAt)) {
        await this.reject(
          parked.projectId,
          waiting.data.user,
          parked.type,
          { commandId: parked.commandId, requestId: parked.requestId ?? undefined },
          'user_not_found',
        );
        await this.deps.users.unpark(parked.commandId);
        handled++;
      }
    }
    return handled;
  }

  private async whenUserExists(
    command: WaitingCommand,
    ctx: MessageContext,
    apply: (user: UserRecord, origin: Origin) => Promise<void>,
  ): Promise<void> {
    const { projectId, user: ref, acceptedAt } = command.data;
    const origin = { commandId: ctx.id, requestId: ctx.requestId };
    const user = await this.deps.users.findByRef(projectId, ref);
    if (!user) {
      // The create may be on another partition, or still queued behind a backlog: the command
      // waits for it instead of blocking this partition; the sweep rejects it once it waited enough.
      await this.deps.users.park({
        commandId: ctx.id,
        projectId,
        ref: refKey(ref),
        type: command.type,
        data: command.data,
        requestId: ctx.requestId ?? null,
        acceptedAt: new Date(acceptedAt),
      });
      this.deps.logger.info('user not found yet, command parked', { type: command.type });
      return;
    }
    await this.drainParked(user); // earlier commands for this user go first
    await apply(user, origin);
  }

  private async drainParked(user: UserRecord): Promise<void> {
    const refs = [refKey({ email: user.email }), ...(user.userId ? [refKey({ userId: user.userId })] : [])];
    const startedAt = new Date();
    const parked = await this.deps.users.parkedFor(user.projectId, refs);
    for (const command of parked) await this.applyParked(user, command);
    if (parked.length > 0) await this.deps.users.forgetParkedRefs(user.projectId, refs, startedAt);
  }

  private async applyParked(user: UserRecord, parked: ParkedCommand): Promise<void> {
    const origin = { commandId: parked.commandId, requestId: parked.requestId ?? undefined };
    const current = (await this.deps.users.findById(String(user._id))) ?? user;
    if (parked.type === 'user.update') await this.applyUpdate(current, parked.data as UserUpdateCommand, origin);
    else if (parked.type === 'user.resubscribe') await this.applyResubscribe(current, parked.data as UserResubscribeCommand);
    else await this.applyUnsubscribe(current, parked.data as UserUnsubscribeCommand, origin);
    await this.deps.users.unpark(parked.commandId);
  }

  private async applyUpdate(user: UserRecord, cmd: Pick<UserUpdateCommand, 'user' | 'fields'>, origin: Origin): Promise<void> {
    const changes = planFieldChanges(cmd.fields);
    if (changes.changed.length === 0) return;
    const result = await this.deps.users.applyChanges(user, changes);
    if (result === 'user_id_taken') return this.reject(user.projectId, cmd.user, 'user.update', origin, 'user_id_taken');
    await this.emit(
      'user.updated',
      user,
      {
        projectId: user.projectId,
        id: String(user._id),
        userId: changes.userId !== undefined ? changes.userId : user.userId,
        changed: changes.changed,
      },
      origin,
      'updated',
    );
  }

  private async applyUnsubscribe(user: UserRecord, cmd: UserUnsubscribeCommand, origin: Origin): Promise<void> {
    if (user.unsubscribedAt) return;
    const at = new Date(cmd.acceptedAt);
    await this.deps.users.markUnsubscribed(user, cmd.reason ?? null, at);
    await this.emit(
      'user.unsubscribed',
      user,
      {
        projectId: user.projectId,
        id: String(user._id),
        userId: user.userId,
        email: user.email,
        reason: cmd.reason ?? null,
        unsubscribedAt: at.toISOString(),
      },
      origin,
      'unsubscribed',
    );
  }

  private async applyResubscribe(user: UserRecord, cmd: UserResubscribeCommand): Promise<void> {
    // An unsubscribe after the client's word is the recipient's later choice: it stays.
    if (!user.unsubscribedAt || user.unsubscribedAt > new Date(cmd.acceptedAt)) return;
    await this.deps.users.markResubscribed(user);
  }

  private async reject(
    projectId: string,
    ref: UserRef,
    command: string,
    origin: Origin,
    reason: 'user_not_found' | 'user_id_taken',
  ): Promise<void> {
    this.deps.logger.warn('user command rejected', { command, reason });
    await this.deps.publisher.publish(
      Topics.UserEvents,
      'user.update_rejected',
      userOrderingKey(projectId, ref),
      { projectId, user: ref, command, commandId: origin.commandId, reason },
      { id: `${origin.commandId}.rejected`, ...(origin.requestId ? { requestId: origin.requestId } : {}) },
    );
  }

  private emitCreated(user: UserRecord, origin: Origin): Promise<void> {
    return this.emit(
      'user.created',
      user,
      { projectId: user.projectId, id: String(user._id), userId: user.userId, email: user.email },
      origin,
      'created',
    );
  }

  private async emit<T extends MessageTypeOn<typeof Topics.UserEvents>>(
    type: T,
    user: UserRecord,
    data: MessageData<T>,
    origin: Origin,
    suffix: string,
  ): Promise<void> {
    await this.deps.publisher.publish(Topics.UserEvents, type, userOrderingKey(user.projectId, { email: user.email }), data, {
      id: `${origin.commandId}.${suffix}`,
      ...(origin.requestId ? { requestId: origin.requestId } : {}),
    });
  }

  /**
   * For one sweep: whether a command accepted at `acceptedAt` has waited long enough for its
   * user's create. The window must have passed, and every create published within it must have
   * been handled: after a backlog (a deploy, an outage) a create accepted before the command may
   * still be queued minutes later, and the window alone would reject a command that is about to
   * apply. Answers are monotonic in time, so one sweep asks the broker about as few times as it can.
   */
  private waitedEnough(): (acceptedAt: string | Date) => Promise<boolean> {
    let passed = -Infinity;
    let notPassed = Infinity;
    return async (acceptedAt) => {
      const upTo = new Date(acceptedAt).getTime() + this.deps.retryWindowMs;
      if (this.now().getTime() <= upTo || upTo >= notPassed) return false;
      if (upTo <= passed || !this.deps.createsHandledUpTo) return true;
      const handled = await this.deps.createsHandledUpTo(new Date(upTo));
      if (handled) passed = upTo;
      else notPassed = upTo;
      return handled;
    };
  }
}
