/** Kafka topics, named postbus.<domain>.<kind>.v1; the namespace suffix isolates test runs. */
export const Topics = {
  UserCommands: 'postbus.users.commands.v1',
  UserEvents: 'postbus.users.events.v1',
  EmailCommands: 'postbus.email.commands.v1',
  /** Log-compacted, keyed by `<kind>:<entity id>`: the latest state of every catalog entity, or its deletion marker. */
  Catalog: 'postbus.catalog.v1',
  /** What happened to each triggered email: message.queued, message.sent, … (key: message id). */
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
} as const;

export type TopicName = (typeof Topics)[keyof typeof Topics];

/**
 * The topics whose messages name people (addresses, user ids, attributes, payments, engagement):
 * they, and their DLQs, keep messages only for PII_TOPIC_RETENTION, so an erased person's data
 * does not outlive the erasure on the bus by more than that. The catalog holds the clients' own
 * setup (projects, domains, templates), never the people they write to.
 */
export const PersonalDataTopics: ReadonlySet<string> = new Set<TopicName>([
  Topics.UserCommands,
  Topics.UserEvents,
  Topics.EmailCommands,
  Topics.EmailEvents,
  Topics.TrackingEvents,
  Topics.PaymentCommands,
  Topics.PaymentEvents,
  Topics.ErasureCommands,
  Topics.ErasureEvents,
]);

/** The topic name as it exists on the broker, with an optional namespace suffix. */
export const topicName = (topic: string, namespace = ''): string => (namespace ? `${topic}.${namespace}` : topic);

/** Where messages that cannot be handled after bounded retries go, with the reason in a header. */
export const dlqOf = (topic: string): string => `${topic}.dlq`;
