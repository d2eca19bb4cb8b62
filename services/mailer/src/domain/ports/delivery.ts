import type { CatalogDomain, CatalogEmail, CatalogKind, CatalogLayout, CatalogProject, CatalogTemplate } from '@postbus/contracts';

/** The entity of each catalog kind. */
export interface CatalogEntities {
  project: CatalogProject;
  domain: CatalogDomain;
  template: CatalogTemplate;
  email: CatalogEmail;
  layout: CatalogLayout;
}

/** This service's copy of the gateway's catalog (model/catalog.repository.ts). */
export interface CatalogLookup {
  /** The live entity asked for; a deleted or unknown one is undefined. */
  get<K extends CatalogKind>(kind: K, id: string): Promise<CatalogEntities[K] | undefined>;
}

/**
 * The language a user's stored profile gives (the users service's, clients/users-client.ts): asked
 * only for a template with language variants when the send names no language.
 */
export interface ProfileLanguages {
  /**
   * The profile's language, by user_id when the message names one, else by address; null when
   * there is none to go by: no such user, no language, or no answer in time. Never rejects.
   */
  languageOf(projectId: string, user: { userId: string | null; email: string }): Promise<string | null>;
}

/** What the relay said of a mail to one address: a 5xx is a bounce, a 4xx or a connection problem a deferral. */
export interface DeliveryOutcome {
  status: 'sent' | 'deferred' | 'bounced';
  code: number;
  response: string;
}

/** The SMTP relay mail is handed to, composed and signed (clients/smtp-relay.ts). */
export interface Relay {
  /** One SMTP transaction for one address, with `from` as the envelope sender. */
  send(from: string, to: string, raw: Buffer): Promise<DeliveryOutcome>;
}
