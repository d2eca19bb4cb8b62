import { Topics, type ErasureExecuteCommand, type ErasureParticipant } from '@postbus/contracts';
import { defineHandler, type Handler, type MessageContext } from './consumer';
import type { Publisher } from './publisher';

/**
 * How a service takes part in an erasure: on `erasure.execute` it removes what it holds about the
 * person (`erase` returns counts by kind, and must be idempotent: the command comes again until
 * every participant has confirmed), then confirms on the bus. A long erasure calls `ctx.heartbeat`
 * between its chunks, so the broker does not take the partition away meanwhile.
 */
export function erasureParticipant(
  service: ErasureParticipant,
  publisher: Publisher,
  erase: (subject: ErasureExecuteCommand, ctx: MessageContext) => Promise<Record<string, number>>,
): Handler<'erasure.execute'> {
  return defineHandler({
    topic: Topics.ErasureEvents,
    type: 'erasure.execute',
    async handle(subject, ctx) {
      const erased = await erase(subject, ctx);
      await publisher.publish(
        Topics.ErasureEvents,
        'erasure.confirmed',
        subject.erasureId,
        { erasureId: subject.erasureId, projectId: subject.projectId, service, erased },
        { id: `${ctx.id}:${service}`, ...(ctx.requestId ? { requestId: ctx.requestId } : {}) },
      );
    },
  });
}
