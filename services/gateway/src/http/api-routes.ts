import type { Sessions } from '../domain/sessions';
import type { KeyAdmin } from '../domain/key-admin';
import type { SenderDomainState } from '../domain/sender-address';
import type { ProjectRepository } from '../model/project.repository';
import type { LayoutRepository } from '../model/layout.repository';
import type { TemplateRepository } from '../model/template.repository';
import { openApiDocument } from './openapi';
import type { RouteSpec } from './route';
import { domainRoutes, type DomainRouteDeps } from './routes/domains.routes';
import { emailRoutes, type EmailRouteDeps } from './routes/emails.routes';
import { erasureRoutes, type ErasureRouteDeps } from './routes/erasure.routes';
import { keyRoutes } from './routes/keys.routes';
import { messageRoutes, type MessageRouteDeps } from './routes/messages.routes';
import { suppressionRoutes, type SuppressionRouteDeps } from './routes/suppressions.routes';
import { paymentRoutes, type PaymentRouteDeps } from './routes/payments.routes';
import { projectRoutes } from './routes/projects.routes';
import { sessionRoutes } from './routes/session.routes';
import { layoutRoutes } from './routes/layouts.routes';
import { templateRoutes } from './routes/templates.routes';
import { userRoutes, type UserRouteDeps } from './routes/users.routes';
import { webhookRoutes, type WebhookRouteDeps } from './routes/webhooks.routes';

/** The API's version, as /v1/openapi.json states it. */
export const API_VERSION = '0.1.0';

export interface ApiRouteDeps {
  sessions: Sessions;
  keyAdmin: KeyAdmin;
  /** Whether the project is the client's (a key may be bound only to one of its client's projects). */
  ownsProject: (clientId: string, projectId: string) => Promise<boolean>;
  domains: DomainRouteDeps;
  projects: {
    repository: ProjectRepository;
    onChange: (projectId: string) => void;
    domainOf: (clientId: string, kind: 'sender' | 'tracking', id: string) => Promise<SenderDomainState | null>;
  };
  templates: { templates: TemplateRepository; layouts: LayoutRepository };
  emails: EmailRouteDeps;
  users: UserRouteDeps;
  messages: MessageRouteDeps;
  suppressions: SuppressionRouteDeps;
  webhooks: WebhookRouteDeps;
  payments: PaymentRouteDeps;
  erasure: ErasureRouteDeps;
}

/** Every public /v1 operation: the one table the gateway mounts and documents. */
export function apiRoutes(deps: ApiRouteDeps): RouteSpec[] {
  return [
    ...sessionRoutes(deps.sessions),
    ...keyRoutes(deps.keyAdmin, deps.ownsProject),
    ...domainRoutes(deps.domains),
    ...projectRoutes(deps.projects.repository, deps.projects.onChange, deps.projects.domainOf),
    ...templateRoutes(deps.templates),
    ...layoutRoutes(deps.templates),
    ...emailRoutes(deps.emails),
    ...userRoutes(deps.users),
    ...messageRoutes(deps.messages),
    ...suppressionRoutes(deps.suppressions),
    ...webhookRoutes(deps.webhooks),
    ...paymentRoutes(deps.payments),
    ...erasureRoutes(deps.erasure),
  ];
}

/**
 * Stands in for every dependency when only the route table's shape is wanted: route factories keep
 * their dependencies for request time, so nothing here is ever called while building the table.
 */
function unusedDependency(): unknown {
  const fail = () => {
    throw new Error('a route dependency was used while only building the OpenAPI document');
  };
  const stub: object = new Proxy(fail, {
    // Not thenable, so an accidental await fails loudly instead of hanging.
    get: (_target, property) => (property === 'then' ? undefined : stub),
    apply: fail,
    construct: fail,
  });
  return stub;
}

/**
 * The route table without any running dependency (no database, no bus): for the OpenAPI document
 * the SDK's types are generated from, and for tests of the table itself.
 */
export function apiRouteTable(): RouteSpec[] {
  return apiRoutes(unusedDependency() as ApiRouteDeps);
}

/** The document /v1/openapi.json serves, built without starting the gateway. */
export function apiDocument(): Record<string, unknown> {
  return openApiDocument(apiRouteTable(), API_VERSION);
}
