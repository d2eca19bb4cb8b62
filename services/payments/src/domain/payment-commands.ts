import type { MessageContext, Publisher } from '@postbus/bus';
import { NotYetKnownError } from '@postbus/bus/errors';
import { Topics, userOrderingKey, type PaymentRecordCommand } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import type { KnownUserLookup, PaymentCommandStore } from './ports';

export interface PaymentCommandsDeps {
  payments: PaymentCommandStore;
  /** The users the users service announced: a payment may only name those. */
  users: KnownUserLookup;
  publisher: Pick<Publisher, 'publish'>;
  logger: Logger;
  /** How long a payment for an unknown user waits for the user, from when the gateway accepted it. */
  userWaitMs: number;
  now?: () => Date;
}

/** What the payments service does with each command; at-least-once delivery, so idempotent. */
export class PaymentCommands {
  private readonly now: () => Date;

  constructor(private readonly deps: PaymentCommandsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async record(cmd: PaymentRecordCommand, ctx: MessageContext): Promise<void> {
    const key = userOrderingKey(cmd.projectId, cmd.user);
    const origin = { id: `${ctx.id}:result`, ...(ctx.requestId ? { requestId: ctx.requestId } : {}) };
    const user = await this.deps.users.find(cmd.projectId, cmd.user);
    if (!user) {
      if (this.now().getTime() - Date.parse(cmd.acceptedAt) < this.deps.userWaitMs) throw new NotYetKnownError('the user of the payment');
      this.deps.logger.info('payment rejected: no such user', { paymentId: cmd.paymentId });
      await this.deps.publisher.publish(
        Topics.PaymentEvents,
        'payment.rejected',
        key,
        { projectId: cmd.projectId, paymentId: cmd.paymentId, user: cmd.user, commandId: ctx.id, reason: 'user_not_found' },
        origin,
      );
      return;
    }
    const result = await this.deps.payments.insert(
      {
        projectId: cmd.projectId,
        paymentId: cmd.paymentId,
        email: user.email,
        userId: user.userId,
        uid: user.id,
        amount: cmd.amount,
        currency: cmd.currency,
        paidAt: new Date(cmd.paidAt),
        description: cmd.description ?? null,
        metadata: cmd.metadata ?? {},
        commandId: ctx.id,
      },
      this.now(),
    );
    // A repeated payment_id is recorded once; only the command that stored it announces it (again
    // if it is redelivered after a crash: consumers dedupe on the event id).
    const stored = result === 'duplicate' ? await this.deps.payments.byId(cmd.projectId, cmd.paymentId) : result;
    if (!stored || stored.commandId !== ctx.id) return;
    // On the user's list and in the revenue before it is announced (and before the offset is committed).
    await this.deps.payments.recorded(stored, result === 'duplicate' ? 'maybe-seen' : 'new');
    await this.deps.publisher.publish(
      Topics.PaymentEvents,
      'payment.recorded',
      key,
      {
        projectId: stored.projectId,
        paymentId: stored.paymentId,
        email: stored.email,
        userId: stored.userId,
        amount: stored.amount,
        currency: stored.currency,
        paidAt: stored.paidAt.toISOString(),
      },
      origin,
    );
  }
}
