import type { TObject, TSchema } from '@sinclair/typebox';
import { DOCUMENT_KEY_PATTERN, ProblemBody, WebhookBodySchemas, type WebhookBodyType } from '@postbus/contracts';
import { acceptsSession, type RouteSpec } from './route';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from './session-cookie';

const DOCUMENT_VALUE_REF = { $ref: '#/components/schemas/DocumentValue' };

/**
 * Any JSON value whose objects, at every level, have keys as DOCUMENT_KEY_PATTERN: the rule the
 * gateway checks with its `x-document` keyword, stated as a schema every OpenAPI tool understands.
 */
const DocumentValue = {
  anyOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'array', items: DOCUMENT_VALUE_REF },
    { type: 'object', propertyNames: { pattern: DOCUMENT_KEY_PATTERN }, additionalProperties: DOCUMENT_VALUE_REF },
  ],
};

/** Free-form objects (`x-document`) say what their values may hold. */
function withDocumentValues(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withDocumentValues);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withDocumentValues(value)]));
  const open =
    out['additionalProperties'] === true ||
    (typeof out['additionalProperties'] === 'object' && Object.keys(out['additionalProperties'] as object).length === 0);
  if ('x-document' in out && open) out['additionalProperties'] = DOCUMENT_VALUE_REF;
  return out;
}

const json = (schema: TSchema) => withDocumentValues(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;

const PROBLEMS: Record<number, string> = {
  400: 'Malformed or invalid request',
  401: 'No or bad credentials',
  403: 'The key scope does not allow this operation',
  404: "Unknown, or another client's, resource",
  405: 'The path exists, but not with this method (see Allow)',
  409: 'A request with this Idempotency-Key is in flight',
  413: 'Body over the limit',
  415: 'Body is not JSON',
  422: 'Well-formed but cannot be processed: an unmet prerequisite, an Idempotency-Key reused with another body, a cursor this API did not give out, a query naming neither email nor user_id, or a header Postbus sets itself',
  429: 'Over the rate limit (see Retry-After and RateLimit)',
  503: 'A service this request needs (the bus, the owning service, DNS) is unavailable; retry after Retry-After',
};

/** Who may call a route besides full keys. */
const scopeNote = (route: RouteSpec): string =>
  [
    route.scope === 'full' ? 'Needs a key with scope "full".' : '',
    route.testKeysMayCall
      ? `A test key (scope "test") may call it too: ${route.method === 'get' ? 'it reads only test messages' : 'its messages are test messages, rendered and recorded with their outcome simulated, never delivered'}.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');

function parameters(route: RouteSpec): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    const props = (schema as TObject | undefined)?.properties ?? {};
    const required = new Set((schema as TObject | undefined)?.required ?? []);
    for (const [name, prop] of Object.entries(props)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: json(prop) });
    }
  }
  if (route.method === 'post') {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      // The same rule route.ts enforces: 1 to 255 printable ASCII characters.
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]{1,255}$' },
      description: route.answerHoldsSecret
        ? 'A repeat within 24 h does not run the operation again; it answers 409, since the secret in the first answer is shown only once and never stored'
        : 'Replays the first answer for 24 h',
    });
  }
  return out;
}

/** A webhook body's name among the document's schemas: `user.erasure_scheduled` → `UserErasureScheduledEvent`. */
export const webhookSchemaName = (type: WebhookBodyType): string =>
  `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;

const WEBHOOK_HEADERS = [
  ['webhook-id', 'the delivery id (msg_…), the same on every attempt: deduplicate by it'],
  ['webhook-timestamp', 'unix seconds when this attempt was signed'],
  ['webhook-signature', 'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with each current secret (Standard Webhooks)'],
  ['postbus-attempt', 'the attempt number, from 1'],
] as const;

/**
 * The OpenAPI `webhooks` section: what Postbus POSTs to a webhook endpoint, one entry per event
 * type, each body a schema of libs/contracts (listed in `components.schemas`).
 */
function webhooks(): { webhooks: Record<string, unknown>; schemas: Record<string, unknown> } {
  const section: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(WebhookBodySchemas) as Array<[WebhookBodyType, TSchema]>) {
    const name = webhookSchemaName(type);
    schemas[name] = json(schema);
    section[type] = {
      post: {
        summary: schema.description,
        tags: ['webhooks'],
        parameters: WEBHOOK_HEADERS.map(([header, description]) => ({
          name: header,
          in: 'header',
          required: true,
          schema: { type: 'string' },
          description,
        })),
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '2XX': { description: 'Received: the delivery succeeded' },
          '410': { description: 'Gone: the endpoint is disabled and gets nothing more' },
          default: { description: 'Anything else, or no answer in time: the delivery is tried again later' },
        },
      },
    };
  }
  return { webhooks: section, schemas };
}

/**
 * The OpenAPI paths of routes: each route's documented responses, plus `more` (the errors every
 * route of the document can meet), each operation secured by `security`.
 */
function pathsOf(
  routes: RouteSpec[],
  more: (route: RouteSpec) => Record<string, unknown>,
  security: (route: RouteSpec) => unknown[],
): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(route.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { 'application/json': { schema: json(r.schema) } } }
        : r.mediaType
          ? { description: r.description, content: { [r.mediaType]: {} } }
          : Number(status) >= 400
            ? { description: r.description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }
            : { description: r.description };
      if (r.headers)
        (responses[status] as Record<string, unknown>)['headers'] = Object.fromEntries(
          Object.entries(r.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
        );
    }
    Object.assign(responses, more(route));
    (paths[path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      ...(route.scope === 'full' || route.testKeysMayCall ? { description: scopeNote(route) } : {}),
      security: security(route),
      parameters: parameters(route),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: json(route.body) } } } } : {}),
      responses,
    };
  }
  return paths;
}

/** The OpenAPI 3.1 document, generated from the same route specs and schemas that validate requests. */
export function openApiDocument(routes: RouteSpec[], version: string): Record<string, unknown> {
  // Every route can meet a business rule (422) and an unavailable dependency (503): reads are
  // answered by the owning service, writes need the bus, verification needs DNS.
  const problems = (route: RouteSpec): Record<string, unknown> => {
    const statuses = [
      429,
      400,
      401,
      404,
      422,
      503,
      ...(route.scope === 'full' || !route.testKeysMayCall ? [403] : []),
      ...(route.body ? [413, 415] : []),
      ...(route.method === 'post' ? [409] : []),
    ];
    return Object.fromEntries(
      statuses.map((status) => [
        String(status),
        { description: PROBLEMS[status], content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      ]),
    );
  };
  const paths = pathsOf(routes, problems, (route) =>
    acceptsSession(route) ? [{ basic: [] }, { bearer: [] }, { sessionCookie: [] }] : [{ basic: [] }],
  );
  const events = webhooks();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Postbus API',
      version,
      description:
        'Self-hostable transactional email. Authenticate with HTTP Basic: the client id as user name, the API key as password (curl -u clientId:api_key).',
    },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'client id and API key' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'an API key alone (it names its client, and its project when bound to one), or an admin session from POST /v1/auth/session',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `the admin panel's session from POST /v1/auth/session/cookie, named ${SECURE_SESSION_COOKIE} over https (where only that name counts); it counts only with Sec-Fetch-Site: same-origin or an Origin of this host (from another origin: 403)`,
        },
      },
      schemas: { Problem: json(ProblemBody), DocumentValue, ...events.schemas },
    },
    paths,
    webhooks: events.webhooks,
  };
}

/**
 * The document of a compatible API (Postmark's, Resend's): its routes with the answers it
 * declares, errors included, in that API's own shape; authenticated by a key bound to a project.
 */
export function compatibleApiDocument(
  api: { title: string; routes: RouteSpec[]; tokenHeader?: string },
  version: string,
): Record<string, unknown> {
  const schemes: Record<string, unknown> = {
    bearer: { type: 'http', scheme: 'bearer', description: 'an API key bound to a project (POST /v1/keys with project_id)' },
    ...(api.tokenHeader
      ? { token: { type: 'apiKey', in: 'header', name: api.tokenHeader, description: 'an API key bound to a project' } }
      : {}),
  };
  const security = Object.keys(schemes).map((name) => ({ [name]: [] }));
  return {
    openapi: '3.1.0',
    info: { title: api.title, version },
    servers: [{ url: '/' }],
    security,
    components: { securitySchemes: schemes },
    paths: pathsOf(
      api.routes,
      () => ({}),
      () => security,
    ),
  };
}
