import {
  normaliseEmail,
  userOrderingKey,
  type EmailTriggerCommand,
  type SendBatchItem,
  type SendBatchResult,
  type SendEmailRequest,
} from '@postbus/contracts';
import { AppError, ValidationError, type FieldError } from '@postbus/errors';
import { messageOptions, refuseBadCopies, refuseReservedHeaders } from './message-options';
import type { TriggerPlan } from './trigger-catalog';

/** An `email.trigger` command and its ordering key (the recipient's), ready to queue. */
export interface Trigger {
  key: string;
  command: EmailTriggerCommand;
}

export interface BatchSendDeps {
  /** The item's field errors against SendBatchItem (pointers within the item), or none. */
  check: (item: unknown) => FieldError[];
  /** The catalog's plan for an email of the project; throws an AppError for what the client must fix. */
  resolve: (emailKey: string) => Promise<TriggerPlan>;
  /** Queues the accepted triggers together (one produce request); throws when the bus did not take them. */
  queue: (triggers: Trigger[]) => Promise<void>;
  newMessageId: () => string;
  now: () => Date;
}

/**
 * The `email.trigger` command for one send (a single send or a batch's item) of the email the
 * catalog planned: the recipient's address normalised, no data as `{}`, and only the options it gave.
 */
export function triggerFor(projectId: string, plan: TriggerPlan, send: SendEmailRequest, messageId: string, acceptedAt: string): Trigger {
  const user = { ...send.user, email: normaliseEmail(send.user.email) };
  return {
    key: userOrderingKey(projectId, { email: user.email }),
    command: {
      messageId,
      projectId,
      emailId: plan.emailId,
      emailKey: plan.emailKey,
      templateId: plan.templateId,
      templateVersion: plan.templateVersion,
      user,
      data: send.data ?? {},
      acceptedAt,
      ...messageOptions(send),
    },
  };
}

/** A rejected item's problem, its pointers located in the whole request body. */
const rejected = (index: number, error: AppError): SendBatchResult => {
  const problem = error.toProblem();
  return {
    index,
    status: 'rejected',
    error: {
      ...problem,
      ...(problem.errors ? { errors: problem.errors.map((e) => ({ ...e, pointer: `/messages/${index}${e.pointer}` })) } : {}),
    },
  };
};

/**
 * A batch of sends: each item checked on its own (its fields, its email, its headers), the good
 * ones queued together, and an answer per item in the request's order. A bad item rejects only
 * itself; an unavailable bus rejects the whole batch (nothing was queued), so a retry with the same
 * Idempotency-Key sends what the first try did not.
 */
export async function sendBatch(projectId: string, items: unknown[], deps: BatchSendDeps): Promise<SendBatchResult[]> {
  const plans = new Map<string, Promise<TriggerPlan>>();
  const acceptedAt = deps.now().toISOString();
  const outcomes = await Promise.all(
    items.map(async (raw, index): Promise<SendBatchResult | (Trigger & { index: number })> => {
      try {
        const errors = deps.check(raw);
        if (errors.length > 0)
          throw new ValidationError(`The message has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
        const item = raw as SendBatchItem;
        refuseReservedHeaders(item.headers);
        refuseBadCopies(item.user.email, item);
        if (!plans.has(item.email_key)) plans.set(item.email_key, deps.resolve(item.email_key));
        const plan = await plans.get(item.email_key)!;
        return { index, ...triggerFor(projectId, plan, item, deps.newMessageId(), acceptedAt) };
      } catch (error) {
        if (error instanceof AppError) return rejected(index, error);
        throw error;
      }
    }),
  );
  const accepted = outcomes.filter((o): o is Trigger & { index: number } => 'command' in o);
  if (accepted.length > 0) await deps.queue(accepted.map(({ key, command }) => ({ key, command })));
  return outcomes.map((o) => ('command' in o ? { index: o.index, status: 'accepted', message_id: o.command.messageId } : o));
}
