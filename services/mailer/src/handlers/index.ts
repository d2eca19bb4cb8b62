import type { Publisher, SendPathPriority } from '@postbus/bus';
import type { Engagements } from '../domain/engagements';
import type { Feedback } from '../domain/feedback';
import type { MailerErasure } from '../domain/erasure-participant';
import type { TriggerDelivery } from '../domain/trigger-delivery';
import type { CatalogProjection } from '../model/catalog.repository';
import type { SuppressionList } from '../domain/suppression-list';
import { catalogDeletedHandler } from './catalog-deleted.handler';
import { catalogEntityHandler } from './catalog-entity.handler';
import { emailErasureRequestedHandler } from './email-erasure-requested.handler';
import { emailSuppressHandler } from './email-suppress.handler';
import { emailUnsuppressHandler } from './email-unsuppress.handler';
import { emailBulkTriggerHandler, emailTriggerHandler } from './email-trigger.handler';
import type { BulkLane } from '../domain/bulk-lane';
import { erasureExecuteHandler } from './erasure-execute.handler';
import { feedbackBounceHandler } from './feedback-bounce.handler';
import { feedbackComplaintHandler } from './feedback-complaint.handler';
import { feedbackUnsubscribeHandler } from './feedback-unsubscribe.handler';
import { trackingEngagementHandler } from './tracking-engagement.handler';
import { userErasureScheduledHandler } from './user-erasure-scheduled.handler';
import { userUnsubscribedHandler } from './user-unsubscribed.handler';
import { suppressionMarkedHandler } from './suppression-marked.handler';
import type { MarkerWatch } from '../domain/marker-watch';

/**
 * The email commands, in one consumer group of their own: the triggers, and the erase and the
 * client's suppressions the gateway puts among them (so that no trigger accepted after one is
 * handled before it).
 */
export const emailCommandHandlers = (
  delivery: TriggerDelivery,
  lanes: { sendPath: SendPathPriority; singles: SendPathPriority },
  erasure: MailerErasure,
  suppressionList: SuppressionList,
) => [
  emailTriggerHandler(delivery, lanes.sendPath, lanes.singles),
  emailErasureRequestedHandler(erasure),
  emailSuppressHandler(suppressionList),
  emailUnsuppressHandler(suppressionList),
];

/** A batch send's messages, in their own lane and consumer group (see BulkLane). */
export const bulkHandlers = (delivery: TriggerDelivery, sendPath: SendPathPriority, lane: BulkLane) => [
  emailBulkTriggerHandler(delivery, sendPath, lane),
];

/** Every instance's suppression markers into this instance's filter of them (a consumer group per instance). */
export const markerHandlers = (markers: MarkerWatch) => [suppressionMarkedHandler(markers)];

/** The catalog topic into this service's projection of it. */
export const catalogHandlers = (catalog: CatalogProjection) => [
  catalogEntityHandler(catalog, 'catalog.project', 'project'),
  catalogEntityHandler(catalog, 'catalog.domain', 'domain'),
  catalogEntityHandler(catalog, 'catalog.template', 'template'),
  catalogEntityHandler(catalog, 'catalog.email', 'email'),
  catalogEntityHandler(catalog, 'catalog.layout', 'layout'),
  catalogDeletedHandler(catalog),
];

/** What reaches the mailer about people and their mail: unsubscribes, erasures, opens and clicks. */
export const peopleHandlers = (
  suppressionList: SuppressionList,
  erasure: MailerErasure,
  engagements: Engagements,
  publisher: Publisher,
) => [
  userUnsubscribedHandler(suppressionList),
  userErasureScheduledHandler(erasure),
  erasureExecuteHandler(erasure, publisher),
  trackingEngagementHandler(engagements, 'tracking.opened', 'opened'),
  trackingEngagementHandler(engagements, 'tracking.clicked', 'clicked'),
  trackingEngagementHandler(engagements, 'tracking.unsubscribed', 'unsubscribed'),
];

/** What the inbound MX read about sent mail: bounces, complaints, mailto unsubscribes. */
export const feedbackHandlers = (feedback: Feedback) => [
  feedbackBounceHandler(feedback),
  feedbackComplaintHandler(feedback),
  feedbackUnsubscribeHandler(feedback),
];
