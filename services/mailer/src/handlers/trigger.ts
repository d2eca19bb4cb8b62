import { defineHandler, type Handler } from '@postbus/bus';
import { Topics, type EmailTriggerCommand } from '@postbus/contracts';
import type { Deliverer } from '../delivery/deliverer';
import { isFinished, type MessageDoc, type MessageStore } from '../model/messages';
import type { RetryQueue } from '../model/retries';
import { Suppressions } from '../model/suppressions';
import type { Timeline } from '../timeline';

export interface TriggerDeps {
  store: MessageStore;
  suppressions: Suppressions;
  retries: RetryQueue;
  deliverer: Deliverer;
  timeline: Timeline;
}

const toMessage = (t: EmailTriggerCommand): MessageDoc => ({
  _id: t.messageId,
  projectId: t.projectId,
  emailId: t.emailId,
  emailKey: t.emailKey,
  templateId: t.templateId,
  templateVersion: t.templateVersion,
  email: String(t.user['email']),
  userId: typeof t.user['user_id'] === 'string' ? t.user['user_id'] : null,
  user: t.user,
  data: t.data,
  acceptedAt: new Date(t.acceptedAt),
  createdAt: new Date(),
});

/**
 * Each accepted trigger becomes one email. The message is stored first (its id is the dedupe key:
 * a redelivered trigger finds it), then every message of the run is rendered, signed and sent side
 * by side, each outcome recorded as soon as the relay answers. A redelivered trigger whose message
 * has an outcome only re-emits its events; one with a retry scheduled is left to the retry worker.
 */
export function triggerHandler({ store, suppressions, retries, deliverer, timeline }: TriggerDeps): Handler<'email.trigger'> {
  const run = async (triggers: EmailTriggerCommand[]): Promise<void> => {
    const messages = [...new Map(triggers.map((t) => [t.messageId, toMessage(t)])).values()];
    const seen = await store.insertNew(messages);
    const timelines = await store.timelines([...seen]);
    const due: Array<{ message: MessageDoc; attempt: number }> = [];
    for (const message of messages) {
      if (!seen.has(message._id)) {
        due.push({ message, attempt: 1 });
        continue;
      }
      const events = timelines.get(message._id) ?? [];
      if (isFinished(events)) await timeline.republish(message, events);
      else if (!(await retries.pending(message._id)))
        due.push({ message, attempt: events.filter((e) => e.event === 'deferred').length + 1 });
    }
    const reasons = await suppressions.reasons(due.map((d) => d.message));
    await Promise.all(
      due.map(async ({ message, attempt }) => {
        const outcome = await deliverer.deliver(message, reasons.get(Suppressions.key(message.projectId, message.email)));
        await timeline.recordAttempt(message, attempt, outcome);
      }),
    );
  };
  return defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.trigger',
    handle: (data) => run([data]),
    async handleBatch(items) {
      await run(items.map((i) => i.data));
      return [];
    },
  });
}
