import type { MessageType } from './messages';

/**
 * The services' consumer groups, each named once: the services consume under these names, and the
 * status service watches their lag. A gateway instance's own group (it reads the catalog and the
 * revocations from the start) is per instance and not listed.
 */
export const ConsumerGroups = {
  users: 'postbus-users',
  usersBulk: 'postbus-users-bulk',
  mailerTriggers: 'postbus-mailer-triggers',
  mailerBulk: 'postbus-mailer-bulk',
  mailerProjections: 'postbus-mailer-projections',
  mailerFeedback: 'postbus-mailer-feedback',
  inbound: 'postbus-inbound',
  inboundCatalog: 'postbus-inbound-catalog',
  webhooks: 'postbus-webhooks',
  webhooksProjects: 'postbus-webhooks-projects',
  payments: 'postbus-payments',
  paymentsUsers: 'postbus-payments-users',
  erasure: 'postbus-erasure',
  erasureUsers: 'postbus-erasure-users',
} as const;

/** Kafka topics, named postbus.<domain>.<kind>.v1; the namespace suffix isolates test runs. */
export const Topics = {
  UserCommands: 'postbus.users.commands.v1',
  UserEvents: 'postbus.users.events.v1',
  EmailCommands: 'postbus.email.commands.v1',
  /**
   * The triggers of batch sends (key: the user's ordering key, as on EmailCommands): a lane of
   * their own, which the mailer takes as its single sends leave room, so that one client's
   * thousands of batched messages never queue ahead of another client's single send.
   */
  EmailBulk: 'postbus.email.bulk.v1',
  /** Log-compacted, keyed by `<kind>:<entity id>`: the latest state of every catalog entity, or its deletion marker. */
  Catalog: 'postbus.catalog.v1',
  /**
   * What happened to each triggered email: message.queued, message.sent, … (key: message id); and
   * the project's suppression list changing, suppression.created and .deleted (key: `<project>:<address>`).
   */
  EmailEvents: 'postbus.email.events.v1',
  /** Opens, clicks and one-click unsubscribes seen at the gateway's edge (key: message id). */
  TrackingEvents: 'postbus.tracking.events.v1',
  PaymentCommands: 'postbus.payments.commands.v1',
  PaymentEvents: 'postbus.payments.events.v1',
  /** Erase requests accepted by the gateway (key: the user's ordering key). */
  ErasureCommands: 'postbus.erasure.commands.v1',
  /**
   * The erasure service's announcements (user.erasure_scheduled, user.erased), its erasure.execute
   * and each service's erasure.confirmed: a quiet topic, so that taking part in erasures never
   * means reading the busy user events.
   */
  ErasureEvents: 'postbus.erasure.events.v1',
  /** Log-compacted, keyed by key id: API key revocations, read by every gateway instance (each its own group). */
  Auth: 'postbus.auth.v1',
  /** What each gateway instance counted towards the shared rate limits (key: instance id); read from the end, kept an hour. */
  GatewayUsage: 'postbus.gateway.usage.v1',
  /** Mail the inbound MX took for a return-path domain, stored before it answered 250 (key: the recipient). */
  InboundMail: 'postbus.inbound.mail.v1',
  /** What came back about a message: bounces, complaints, mailto unsubscribes (key: message id). */
  Feedback: 'postbus.feedback.v1',
  /** Suppression marker keys as a mailer stores them, read by every mailer instance (each its own group) from the start. */
  SuppressionMarkers: 'postbus.mailer.markers.v1',
} as const;

export type TopicName = (typeof Topics)[keyof typeof Topics];

/**
 * The topic each message type travels on, stated once: publishing or handling a type on another
 * topic does not type-check (`Publisher.publish`, `defineHandler` in libs/bus).
 */
export const MessageTopics = {
  'user.create': Topics.UserCommands,
  'user.update': Topics.UserCommands,
  'user.unsubscribe': Topics.UserCommands,
  'user.resubscribe': Topics.UserCommands,
  'user.created': Topics.UserEvents,
  'user.updated': Topics.UserEvents,
  'user.unsubscribed': Topics.UserEvents,
  'user.update_rejected': Topics.UserEvents,
  'email.trigger': Topics.EmailCommands,
  'email.bulk_trigger': Topics.EmailBulk,
  'email.erasure_requested': Topics.EmailCommands,
  'email.suppress': Topics.EmailCommands,
  'email.unsuppress': Topics.EmailCommands,
  'catalog.project': Topics.Catalog,
  'catalog.domain': Topics.Catalog,
  'catalog.template': Topics.Catalog,
  'catalog.email': Topics.Catalog,
  'catalog.layout': Topics.Catalog,
  'catalog.deleted': Topics.Catalog,
  'message.scheduled': Topics.EmailEvents,
  'message.queued': Topics.EmailEvents,
  'message.deferred': Topics.EmailEvents,
  'message.sent': Topics.EmailEvents,
  'message.bounced': Topics.EmailEvents,
  'message.failed': Topics.EmailEvents,
  'message.suppressed': Topics.EmailEvents,
  'message.opened': Topics.EmailEvents,
  'message.clicked': Topics.EmailEvents,
  'message.unsubscribed': Topics.EmailEvents,
  'message.soft_bounced': Topics.EmailEvents,
  'message.complained': Topics.EmailEvents,
  'message.canceled': Topics.EmailEvents,
  'suppression.created': Topics.EmailEvents,
  'suppression.deleted': Topics.EmailEvents,
  'suppression.marked': Topics.SuppressionMarkers,
  'tracking.opened': Topics.TrackingEvents,
  'tracking.clicked': Topics.TrackingEvents,
  'tracking.unsubscribed': Topics.TrackingEvents,
  'payment.record': Topics.PaymentCommands,
  'payment.recorded': Topics.PaymentEvents,
  'payment.rejected': Topics.PaymentEvents,
  'erasure.request': Topics.ErasureCommands,
  'user.erasure_scheduled': Topics.ErasureEvents,
  'erasure.execute': Topics.ErasureEvents,
  'erasure.confirmed': Topics.ErasureEvents,
  'user.erased': Topics.ErasureEvents,
  'auth.key_revoked': Topics.Auth,
  'gateway.usage': Topics.GatewayUsage,
  'inbound.received': Topics.InboundMail,
  'feedback.bounce': Topics.Feedback,
  'feedback.complaint': Topics.Feedback,
  'feedback.unsubscribe': Topics.Feedback,
} as const satisfies Record<MessageType, TopicName>;

/** The topic a message type travels on. */
export type TopicOf<T extends MessageType> = (typeof MessageTopics)[T];

/** The message types that travel on a topic: a type parameter bounded by it may be published there. */
export type MessageTypeOn<Topic extends TopicName> = { [T in MessageType]: TopicOf<T> extends Topic ? T : never }[MessageType];

/**
 * The topics whose messages never name people: the catalog holds the clients' own setup
 * (projects, domains, templates), the auth topic key ids, the usage topic counts per client.
 */
const TopicsWithoutPersonalData: ReadonlySet<TopicName> = new Set<TopicName>([Topics.Catalog, Topics.Auth, Topics.GatewayUsage]);

/**
 * The topics whose messages name people (addresses, user ids, attributes, payments, engagement):
 * they, and their DLQs, keep messages only for PII_TOPIC_RETENTION, so an erased person's data
 * does not outlive the erasure on the bus by more than that. Every topic but those above: a new
 * topic is personal unless it is listed there.
 */
export const PersonalDataTopics: ReadonlySet<string> = new Set<TopicName>(
  Object.values(Topics).filter((topic) => !TopicsWithoutPersonalData.has(topic)),
);

/**
 * Topics written in large requests (a batch's hundreds of triggers at once): a publisher writes
 * them on a producer of their own, so that a publish to any other topic never waits behind one
 * of their produce requests (see Publisher in libs/bus).
 */
export const BulkTopics: ReadonlySet<string> = new Set<TopicName>([Topics.EmailBulk]);

/** The topic name as it exists on the broker, with an optional namespace suffix. */
export const topicName = (topic: string, namespace = ''): string => (namespace ? `${topic}.${namespace}` : topic);

/** Where messages that cannot be handled after bounded retries go, with the reason in a header. */
export const dlqOf = (topic: string): string => `${topic}.dlq`;
