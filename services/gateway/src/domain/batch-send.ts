import { normaliseEmail, userOrderingKey, type EmailTriggerCommand, type SendBatchItem, type SendBatchResult } from '@postbus/contracts';
import { AppError, ValidationError, type FieldError } from '@postbus/errors';
import { messageOptions, refuseReservedHeaders } from './message-options';
import type { TriggerPlan } from './trigger-catalog';

export interface BatchSendDeps {
  /** The item's field errors against SendBatchItem (pointers within the item), or none. */
  check: (item: unknown) => FieldError[];
  /** The catalog's plan for an email of the project; throws an AppError for what the client must fix. */
  resolve: (emailKey: string) => Promise<TriggerPlan>;
  /** Queues the accepted triggers together (one produce request); throws when the bus did not take them. */
  queue: (triggers: Array<{ key: string; command: EmailTriggerCommand }>) => Promise<void>;
  newMessageId: () => string;
  now: () => Date;
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
    items.map(async (raw, index): Promise<SendBatchResult | { index: number; key: string; command: EmailTriggerCommand }> => {
      try {
        const errors = deps.check(raw);
        if (errors.length > 0)
          throw new ValidationError(`The message has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
        const item = raw as SendBatchItem;
        refuseReservedHeaders(item.headers);
        if (!plans.has(item.email_key)) plans.set(item.email_key, deps.resolve(item.email_key));
        const plan = await plans.get(item.email_key)!;
        const user = { ...item.user, email: normaliseEmail(item.user.email) };
        return {
          index,
          key: userOrderingKey(projectId, { email: user.email }),
          command: {
            messageId: deps.newMessageId(),
            projectId,
            emailId: plan.emailId,
            emailKey: plan.emailKey,
            templateId: plan.templateId,
            templateVersion: plan.templateVersion,
            user,
            data: item.data ?? {},
            acceptedAt,
            ...messageOptions(item),
          },
        };
      } catch (error) {
        if (error instanceof AppError) return rejected(index, error);
        throw error;
      }
    }),
  );
  const accepted = outcomes.filter((o): o is { index: number; key: string; command: EmailTriggerCommand } => 'command' in o);
  if (accepted.length > 0) await deps.queue(accepted.map(({ key, command }) => ({ key, command })));
  return outcomes.map((o) => ('command' in o ? { index: o.index, status: 'accepted', message_id: o.command.messageId } : o));
}
