import { defineHandler, type BatchItem, type Handler, type MessageContext } from '@postbus/bus';
import { MESSAGE_WEBHOOK_EVENTS, Topics, type MessageType, type TopicOf } from '@postbus/contracts';
import type { Logger } from '@postbus/logger';
import { deliveryIdOf, type DeliveryDoc, type DeliveryStore } from '../model/deliveries';
import type { EndpointStore } from '../model/endpoints';
import type { ProjectOwners } from '../model/projects';
import {
  bodyOf,
  messageEvent,
  userErased,
  userErasureScheduled,
  userUnsubscribed,
  userUpdateRejected,
  type WebhookEvent,
} from '../payloads';

export interface EventDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  projects: ProjectOwners;
  logger: Logger;
  /**
   * Makes the first attempt of new deliveries; resolves once each is recorded (and its retry
   * scheduled if it failed). The event's offset is committed only then, so a process that dies
   * before has the event redelivered and the deliveries attempted again; none is lost, and the
   * happy path writes no due entry at all.
   */
  attemptFirst: (deliveries: DeliveryDoc[]) => Promise<void>;
  /** How long an event waits for its project to reach this service's projection. */
  projectWaitMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Every event a subscriber may want becomes one stored delivery per matching endpoint, and its
 * first attempt, before the Kafka message is acknowledged; a delivery's id derives from the event
 * id and the endpoint, so a redelivered event adds nothing.
 */
export function eventHandlers({ endpoints, deliveries, projects, logger, attemptFirst, projectWaitMs = 30_000 }: EventDeps): Handler[] {
  // A project not heard of yet may be on its way on the catalog topic: the first event waits
  // for it once; when it still has not come, later events do not wait again (until it comes).
  const givenUp = new Set<string>();
  const clientOf = async (projectId: string, sentAt: string): Promise<string | undefined> => {
    const deadline = Date.parse(sentAt) + projectWaitMs;
    for (;;) {
      const owner = await projects.ownerOf(projectId);
      if (owner === 'deleted') return undefined;
      if (owner) {
        givenUp.delete(projectId);
        return owner.clientId;
      }
      if (givenUp.has(projectId) || Date.now() >= deadline) {
        givenUp.add(projectId);
        return undefined;
      }
      await sleep(200);
    }
  };
  const store = async (events: Array<{ event: WebhookEvent; ctx: MessageContext }>): Promise<void> => {
    const now = new Date();
    const docs: DeliveryDoc[] = [];
    // Each project of the batch looked up once, side by side: one unknown project waits once, not once per event.
    const owners = new Map<string, Promise<string | undefined>>();
    for (const { event, ctx } of events) if (!owners.has(event.projectId)) owners.set(event.projectId, clientOf(event.projectId, ctx.time));
    for (const { event, ctx } of events) {
      const clientId = await owners.get(event.projectId)!;
      if (!clientId) {
        logger.warn('event for a project this service does not know (or that was deleted); no webhook', {
          eventType: event.type,
          eventId: ctx.id,
        });
        continue;
      }
      for (const endpoint of await endpoints.matching(clientId, event.projectId, event.type)) {
        docs.push({
          _id: deliveryIdOf(ctx.id, endpoint._id),
          endpointId: endpoint._id,
          clientId,
          eventId: ctx.id,
          eventType: event.type,
          payload: bodyOf(event),
          createdAt: now,
        });
      }
    }
    await attemptFirst(await deliveries.add(docs));
  };
  const handler = <T extends MessageType>(
    topic: TopicOf<T>,
    type: T,
    toEvent: (data: never, ctx: MessageContext) => WebhookEvent,
  ): Handler =>
    defineHandler({
      topic,
      type,
      handle: (data, ctx) => store([{ event: toEvent(data as never, ctx), ctx }]),
      async handleBatch(items: BatchItem<T>[]) {
        await store(items.map(({ data, ctx }) => ({ event: toEvent(data as never, ctx), ctx })));
        return [];
      },
    });
  return [
    ...MESSAGE_WEBHOOK_EVENTS.map((e) =>
      handler(Topics.EmailEvents, `message.${e}` as 'message.sent', (data: Parameters<typeof messageEvent>[1]) =>
        messageEvent(`message.${e}`, data),
      ),
    ),
    handler(Topics.UserEvents, 'user.unsubscribed', (data: Parameters<typeof userUnsubscribed>[0]) => userUnsubscribed(data)),
    handler(Topics.UserEvents, 'user.update_rejected', (data: Parameters<typeof userUpdateRejected>[0], ctx: MessageContext) =>
      userUpdateRejected(data, ctx.time),
    ),
    handler(Topics.ErasureEvents, 'user.erasure_scheduled', (data: Parameters<typeof userErasureScheduled>[0]) =>
      userErasureScheduled(data),
    ),
    handler(Topics.ErasureEvents, 'user.erased', (data: Parameters<typeof userErased>[0]) => userErased(data)),
  ];
}

/** The catalog's projects, for their owners. */
export function projectHandlers(projects: ProjectOwners): Handler[] {
  return [
    defineHandler({ topic: Topics.Catalog, type: 'catalog.project', handle: (data) => projects.set(data.id, data.clientId) }),
    defineHandler({
      topic: Topics.Catalog,
      type: 'catalog.deleted',
      handle: (data) => (data.kind === 'project' ? projects.remove(data.id) : Promise.resolve()),
    }),
  ] as Handler[];
}
