import { NotFoundError, UnprocessableError } from '@postbus/errors';
import type { EmailLookup, ProjectLookup, TemplateLookup } from './ports/catalog';
import type { ContentPlan } from './content-send';
import type { DomainStore } from './ports/domains';

/** What a trigger needs from the catalog once its prerequisites are known to be met. */
export interface TriggerPlan {
  emailId: string;
  emailKey: string;
  templateId: string;
  templateVersion: number;
  /** The template's catalog revision when resolved: the mailer's projection must have caught up with it. */
  templateRevision: number;
}

export interface TriggerCatalogDeps {
  projects: ProjectLookup;
  emails: EmailLookup;
  domains: Pick<DomainStore, 'get'>;
  templates: TemplateLookup;
  /** How long a resolved plan is reused; 0 reads the database on every trigger. */
  ttlMs: number;
  maxEntries?: number;
}

export const EMAIL_NOT_FOUND = 'No such transactional email in this project.';

/**
 * Resolves a trigger against the catalog (project, email, verified sender domain, template) and
 * keeps successful resolutions for a short while, so the hot path reads no database. Every local
 * catalog change empties the cache; another gateway instance's change is seen within ttlMs, and
 * the mailer checks its own projection again before it sends. Failures are never cached, so a
 * prerequisite met a moment ago takes effect at once.
 */
export class TriggerCatalog {
  private readonly plans = new Map<string, { plan: TriggerPlan | ContentPlan; expires: number }>();

  constructor(private readonly deps: TriggerCatalogDeps) {}

  readonly forget = (): void => this.plans.clear();

  /** A template send's plan: the email the key names, its template, and the project's verified sender domain. */
  resolve(clientId: string, projectId: string, emailKey: string): Promise<TriggerPlan> {
    return this.cached(`${clientId}\n${projectId}\n${emailKey}`, () => this.lookUp(clientId, projectId, emailKey));
  }

  /** A content send's plan: the project's verified sender domain and its tracking. */
  resolveContent(clientId: string, projectId: string): Promise<ContentPlan> {
    return this.cached(`${clientId}\n${projectId}\n`, async () => {
      const project = await this.deps.projects.get(clientId, projectId);
      if (!project) throw new NotFoundError('No such project for this client.');
      const domain = await this.verifiedSenderDomain(clientId, project.sender_domain_id);
      return { senderDomain: domain.domain, trackOpens: project.track_opens, trackClicks: project.track_clicks };
    });
  }

  private async cached<P extends TriggerPlan | ContentPlan>(key: string, lookUp: () => Promise<P>): Promise<P> {
    const now = Date.now();
    const cached = this.plans.get(key);
    if (cached && cached.expires > now) return cached.plan as P;
    const plan = await lookUp();
    if (this.deps.ttlMs > 0) {
      if (this.plans.size >= (this.deps.maxEntries ?? 10_000)) this.plans.clear();
      this.plans.set(key, { plan, expires: now + this.deps.ttlMs });
    }
    return plan;
  }

  private async lookUp(clientId: string, projectId: string, emailKey: string): Promise<TriggerPlan> {
    const { projects, emails, templates } = this.deps;
    const [project, email] = await Promise.all([projects.get(clientId, projectId), emails.get(clientId, projectId, emailKey)]);
    if (!project) throw new NotFoundError('No such project for this client.');
    if (!email) throw new NotFoundError(EMAIL_NOT_FOUND);
    const [, template] = await Promise.all([
      this.verifiedSenderDomain(clientId, project.sender_domain_id),
      templates.published(clientId, projectId, email.template_id),
    ]);
    if (!template) throw new UnprocessableError('template-missing', `The email ${email.key} names a template that no longer exists.`);
    return {
      emailId: email.id,
      emailKey: email.key,
      templateId: template.id,
      templateVersion: template.version,
      // The catalog's revision of a template is when it last changed (see the catalog's toCatalog).
      templateRevision: template.updatedAt.getTime(),
    };
  }

  /** The project's sender domain, which must be verified: a client sends only as its own domain. */
  private async verifiedSenderDomain(clientId: string, senderDomainId: string | null) {
    const domain = senderDomainId ? await this.deps.domains.get(clientId, 'sender', senderDomainId) : null;
    if (!domain) {
      throw new UnprocessableError(
        'sender-domain-missing',
        'The project has no sender domain: add one (POST /v1/sender-domains) and set sender_domain_id on the project.',
      );
    }
    if (domain.status !== 'verified') {
      throw new UnprocessableError(
        'sender-domain-unverified',
        `The sender domain ${domain.domain} is not verified: publish its DNS records and call POST /v1/sender-domains/${String(domain._id)}/verify.`,
      );
    }
    return domain;
  }
}
