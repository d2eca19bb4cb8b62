import { Topics, type ErasureExecuteCommand, type ErasureParticipant } from '@postbus/contracts';
import { defineHandler, type Handler } from './consumer';
import type { Publisher } from './publisher';

/**
 * How a service takes part in an erasure: on `erasure.execute` it removes what it holds about the
 * person (`erase` returns counts by kind, and must be idempotent: the command comes again until
 * every participant has confirmed), then confirms on the bus.
 */
export function erasureParticipant(
  service: ErasureParticipant,
  publisher: Publisher,
  erase: (subject: ErasureExecuteCommand) => Promise<Record<string, number>>,
): Handler<'erasure.execute'> {
  return defineHandler({
    topic: Topics.ErasureEvents,
    type: 'erasure.execute',
    async handle(subject, ctx) {
      const erased = await erase(subject);
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
