import { ApiKeyRepository } from '../model/api-key.repository';
import { CatalogChanges } from '../model/catalog-changes';
import { ClientRepository } from '../model/client.repository';
import { DomainRepository } from '../model/domain.repository';
import { EmailRepository } from '../model/email.repository';
import { IdempotencyRepository } from '../model/idempotency.repository';
import { LayoutRepository } from '../model/layout.repository';
import { ProjectRepository } from '../model/project.repository';
import { TemplateRepository } from '../model/template.repository';
import type { Infrastructure } from './infrastructure';

/** The gateway's repositories, initialised (they close with the database). */
export interface Stores {
  /** Where the catalog repositories report their stored changes; the consumers step adds the listeners. */
  catalogChanges: CatalogChanges;
  apiKeys: ApiKeyRepository;
  projects: ProjectRepository;
  idempotency: IdempotencyRepository;
  domains: DomainRepository;
  templates: TemplateRepository;
  layouts: LayoutRepository;
  emails: EmailRepository;
}

export async function openStores({ db, templateEngine }: Infrastructure): Promise<Stores> {
  const catalogChanges = new CatalogChanges();
  const clients = new ClientRepository(db);
  const apiKeys = new ApiKeyRepository(db);
  const projects = new ProjectRepository(db, catalogChanges);
  const idempotency = new IdempotencyRepository(db);
  const domains = new DomainRepository(db, catalogChanges);
  const templates = new TemplateRepository(db, catalogChanges, templateEngine);
  const layouts = new LayoutRepository(db, catalogChanges);
  const emails = new EmailRepository(db, catalogChanges);
  await clients.init();
  await Promise.all([apiKeys.init(), projects.init(), idempotency.init(), domains.init(), templates.init(), layouts.init(), emails.init()]);
  return { catalogChanges, apiKeys, projects, idempotency, domains, templates, layouts, emails };
}
