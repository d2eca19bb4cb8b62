import type { Publisher } from '@postbus/bus';
import type { DeliveryErasure } from '../domain/erasure-participant';
import type { EventFanout } from '../domain/event-fanout';
import type { ProjectOwners } from '../model/project.repository';
import { catalogDeletedHandler } from './catalog-deleted.handler';
import { catalogProjectHandler } from './catalog-project.handler';
import { erasureExecuteHandler } from './erasure-execute.handler';
import { messageEventHandlers } from './message-event.handler';
import { suppressionChangedHandlers } from './suppression-changed.handler';
import { userErasedHandler } from './user-erased.handler';
import { userErasureScheduledHandler } from './user-erasure-scheduled.handler';
import { userUnsubscribedHandler } from './user-unsubscribed.handler';
import { userUpdateRejectedHandler } from './user-update-rejected.handler';

/** The events that become webhooks: the message events, the suppression list's changes, and the user and erasure events subscribers may want. */
export const eventHandlers = (fanout: EventFanout) => [
  ...messageEventHandlers(fanout),
  ...suppressionChangedHandlers(fanout),
  userUnsubscribedHandler(fanout),
  userUpdateRejectedHandler(fanout),
  userErasureScheduledHandler(fanout),
  userErasedHandler(fanout),
];

/** The catalog's projects, for their owners. */
export const projectHandlers = (projects: ProjectOwners) => [catalogProjectHandler(projects), catalogDeletedHandler(projects)];

/** Its part in erasures: the deliveries about the person go. */
export const erasureHandlers = (erasure: DeliveryErasure, publisher: Publisher) => [erasureExecuteHandler(erasure, publisher)];
