import type { MessageContext } from '@postbus/bus';
import type { Logger } from '@postbus/logger';
import type { WebhookFormat } from '@postbus/contracts';
import { deliveryIdOf, personOf } from './delivery-keys';
import type { DeliveryLog, EndpointDirectory, ProjectOwnerLookup } from './ports';
import type { DeliveryDoc } from './records';
import { bodyIn } from './webhook-formats';
import type { WebhookEvent } from './webhook-payloads';

export interface EventDeps {
  endpoints: Pick<EndpointDirectory, 'matching'>;
  deliveries: Pick<DeliveryLog, 'add'>;
  projects: ProjectOwnerLookup;
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

/** A webhook event with the bus message it came from (whose id and time it keeps). */
export interface EventFromMessage {
  event: WebhookEvent;
  ctx: MessageContext;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Every event a subscriber may want becomes one stored delivery per matching endpoint, and its
 * first attempt, before the Kafka message is acknowledged; a delivery's id derives from the event
 * id and the endpoint, so a redelivered event adds nothing.
 */
export class EventFanout {
  // A project not heard of yet may be on its way on the catalog topic: the first event waits
  // for it once; when it still has not come, later events do not wait again (until it comes).
  private readonly givenUp = new Set<string>();
  private readonly projectWaitMs: number;

  constructor(private readonly deps: EventDeps) {
    this.projectWaitMs = deps.projectWaitMs ?? 30_000;
  }

  /** Stores the deliveries of these events (one message's, or a run of one partition's) and makes their first attempts. */
  async deliver(events: EventFromMessage[]): Promise<void> {
    const { endpoints, deliveries, logger, attemptFirst } = this.deps;
    const now = new Date();
    const docs: DeliveryDoc[] = [];
    // Each project of the batch looked up once, side by side: one unknown project waits once, not once per event.
    const owners = new Map<string, Promise<string | undefined>>();
    for (const { event, ctx } of events)
      if (!owners.has(event.projectId)) owners.set(event.projectId, this.clientOf(event.projectId, ctx.time));
    for (const { event, ctx } of events) {
      const clientId = await owners.get(event.projectId)!;
      if (!clientId) {
        logger.warn('event for a project this service does not know (or that was deleted); no webhook', {
          eventType: event.type,
          eventId: ctx.id,
        });
        continue;
      }
      // Each format's body written once per event, whatever the number of its endpoints.
      const bodies = new Map<WebhookFormat, string | null>();
      const person = personOf(event);
      for (const endpoint of await endpoints.matching(clientId, event.projectId, event.type)) {
        const format = endpoint.format ?? 'standard';
        let payload = bodies.get(format);
        if (payload === undefined) bodies.set(format, (payload = bodyIn(format, event)));
        // An event the endpoint's format has no counterpart for is not sent to it.
        if (payload === null) continue;
        docs.push({
          _id: deliveryIdOf(ctx.id, endpoint._id),
          endpointId: endpoint._id,
          clientId,
          eventId: ctx.id,
          eventType: event.type,
          payload,
          ...(format === 'standard' ? {} : { format, ...(person ? { person } : {}) }),
          createdAt: now,
        });
      }
    }
    await attemptFirst(await deliveries.add(docs));
  }

  private async clientOf(projectId: string, sentAt: string): Promise<string | undefined> {
    const deadline = Date.parse(sentAt) + this.projectWaitMs;
    for (;;) {
      const owner = await this.deps.projects.ownerOf(projectId);
      if (owner === 'deleted') return undefined;
      if (owner) {
        this.givenUp.delete(projectId);
        return owner.clientId;
      }
      if (this.givenUp.has(projectId) || Date.now() >= deadline) {
        this.givenUp.add(projectId);
        return undefined;
      }
      await sleep(200);
    }
  }
}
