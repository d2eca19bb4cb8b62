import { defineHandler } from '@postbus/bus';
import { Topics, type MessageType } from '@postbus/contracts';
import type { Engagements } from '../domain/engagements';

/** `tracking.opened`, `tracking.clicked`, `tracking.unsubscribed`: engagement joins the message's timeline. */
export const trackingEngagementHandler = (
  engagements: Engagements,
  type: MessageType & `tracking.${string}`,
  event: 'opened' | 'clicked' | 'unsubscribed',
) =>
  defineHandler({
    topic: Topics.TrackingEvents,
    type: type as 'tracking.opened',
    handle: (data, ctx) => engagements.record(data, event, ctx.id),
  });
