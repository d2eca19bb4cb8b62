/** @postbus-system shared */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { call, waitFor } from '@postbus/testing';
import { startReceiver } from './webhook-receiver';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Operation {
  method: Method;
  path: string;
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: { 'application/json': { schema: object } } };
}

/** Everything client A owns, by the name its id has as a path parameter. */
type Ids = Record<string, string>;

/**
 * A valid body for every operation that takes one, naming A's resources wherever a body can name
 * one. Bodies are checked against the document's schema first: an invalid example would only
 * prove that validation works. A new operation with a body fails the test until it has one here.
 */
const bodies = (a: Ids): Record<string, unknown> => ({
  createSenderDomain: { domain: 'mail.b-side.example' },
  createTrackingDomain: { domain: 'track.b-side.example' },
  createProject: {
    name: 'B',
    sender_domain_id: a['senderDomainId'],
    tracking_domain_id: a['trackingDomainId'],
    from_email: 'hello@mail.a-side.example',
  },
  updateProject: { name: 'B was here', sender_domain_id: a['senderDomainId'] },
  createTemplate: { name: 'B', subject: 'B', html: '<p>B</p>' },
  saveTemplateVersion: { name: 'B', subject: 'B', html: '<p>B</p>', layout_id: a['layoutId'], draft: true },
  createLayout: { name: 'B', html: '<div>{{{content}}}</div>' },
  saveLayoutVersion: { name: 'B', html: '<div>B {{{content}}}</div>', draft: true },
  previewTemplate: { user: { email: 'ann@a-side.example' }, data: {} },
  previewDraftTemplate: { subject: 'B', html: '<p>{{user.email}}</p>', user: { email: 'ann@a-side.example' } },
  validateTemplate: { subject: 'B', html: '<p>{{user.email}}</p>', user: { email: 'ann@a-side.example' } },
  createEmail: { key: 'b-email', name: 'B', template_id: a['templateId'] },
  updateEmail: { name: 'B was here', template_id: a['templateId'] },
  sendEmail: { user: { email: 'ann@a-side.example', name: 'Ann' }, data: {} },
  sendEmailBatch: { messages: [{ email_key: a['emailKey'], user: { email: 'ann@a-side.example' } }] },
  sendContentEmail: { to: 'ann@a-side.example', subject: 'Hi', text: 'Hi' },
  createUser: { email: 'ann@a-side.example', user_id: 'ann-1' },
  updateUserByEmail: { email: 'ann@a-side.example', fields: { plan: 'stolen' } },
  updateUserByUserId: { fields: { plan: 'stolen' } },
  unsubscribeUser: { email: 'ann@a-side.example' },
  createWebhook: { url: 'https://hooks.b-side.example/in', events: ['*'], project_id: a['projectId'] },
  updateWebhook: { description: 'B was here' },
  createPayment: { email: 'ann@a-side.example', payment_id: 'b-1', amount: 100, currency: 'EUR' },
  eraseUser: { email: 'ann@a-side.example' },
  createApiKey: { name: 'B backend', scope: 'sdk' },
  createSuppression: { email: 'ann@a-side.example', reason: 'manual' },
});

describe("tenant isolation: client B can reach nothing of client A's, on every route of the OpenAPI document", () => {
  let system: RunningSystem;
  let a: DemoClient;
  let b: DemoClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const ids: Ids = {};
  // Path parameters that are positions, not ids: the same for every client, so not looked for in B's answers.
  const POSITIONS: Record<string, string> = { index: '0', version: '1' };

  beforeAll(async () => {
    system = await sharedSystem();
    receiver = await startReceiver();
    [a, b] = await Promise.all([createClientAndProject(system), createClientAndProject(system)]);
    const asA = async (method: string, path: string, json?: unknown) => {
      const res = await call(system.gatewayUrl, method, path, { auth: a.auth, ...(json !== undefined ? { json } : {}) });
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
      return res.body;
    };
    const email = await createSendableEmail(system, a, { domain: 'mail.a-side.example', trackingDomain: 'track.a-side.example' });
    ids['projectId'] = a.projectId;
    ids['templateId'] = email.templateId;
    ids['layoutId'] = (await asA('POST', `/v1/projects/${a.projectId}/layouts`, { name: 'A', html: '<main>{{{content}}}</main>' })).id;
    ids['emailKey'] = email.emailKey;
    ids['senderDomainId'] = (await asA('GET', '/v1/sender-domains')).data[0].id;
    ids['trackingDomainId'] = (await asA('GET', '/v1/tracking-domains')).data[0].id;
    ids['keyId'] = (await asA('GET', '/v1/keys')).data[0].id;
    const webhook = await asA('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] });
    ids['webhookId'] = webhook.id;
    await asA('POST', `/v1/projects/${a.projectId}/users`, { email: 'ann@a-side.example', user_id: 'ann-1' });
    const sent = await asA('POST', `/v1/projects/${a.projectId}/emails/${email.emailKey}/send`, { user: { email: 'ann@a-side.example' } });
    ids['messageId'] = sent.message_id;
    ids['userId'] = 'ann-1';
    await asA('POST', `/v1/projects/${a.projectId}/payments`, {
      email: 'ann@a-side.example',
      payment_id: 'a-1',
      amount: 500,
      currency: 'EUR',
    });
    const erased = await asA('POST', `/v1/projects/${a.projectId}/users/erase`, { email: 'gone@a-side.example' });
    ids['erasureId'] = erased.erasure_id;
    const deliveries = await waitFor(
      async () => {
        const log = await asA('GET', `/v1/webhooks/${webhook.id as string}/deliveries`);
        return log.data.length > 0 ? log.data : undefined;
      },
      { timeoutMs: 20_000, what: "a delivery of A's webhook" },
    );
    ids['deliveryId'] = deliveries[0].id;
    // An address A suppressed, which none of B's requests names.
    await asA('POST', `/v1/projects/${a.projectId}/suppressions`, { email: 'blocked@a-side.example', reason: 'manual' });
    await waitFor(
      async () => (await asA('GET', `/v1/projects/${a.projectId}/suppressions?email=blocked@a-side.example`)).data.length > 0 || undefined,
      { timeoutMs: 20_000, what: "A's suppression listed" },
    );
    ids['email'] = 'blocked@a-side.example';
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it("13 two clients: every route tried with B's key on A's ids answers 404, B's lists show none of A's ids, B cannot send as A, and A's resources are unchanged", async () => {
    const doc = (await call(system.gatewayUrl, 'GET', '/v1/openapi.json')).body as {
      paths: Record<string, Record<Method, Omit<Operation, 'method' | 'path'>>>;
      components: object;
    };
    const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ ...op, method: method as Method, path })),
    );
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const examples = bodies(ids);
    const aIds = Object.values(ids);
    const problems: string[] = [];
    let tried = 0;

    for (const op of operations) {
      const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const missing = params.filter((p) => !ids[p] && !(p in POSITIONS));
      if (missing.length) {
        problems.push(`${op.operationId}: no id of A's for ${missing.join(', ')} (add one in beforeAll)`);
        continue;
      }
      let body: unknown;
      if (op.requestBody) {
        body = examples[op.operationId];
        if (body === undefined) {
          problems.push(`${op.operationId}: no example body (add one to bodies())`);
          continue;
        }
        // Its $refs point into the document's components: validated with them at hand.
        const schema = { ...op.requestBody.content['application/json'].schema, components: doc.components };
        if (!ajv.validate(schema, body)) {
          problems.push(`${op.operationId}: the example body is invalid: ${ajv.errorsText()}`);
          continue;
        }
      }
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? POSITIONS[name]!));
      // Required query parameters from the document; the "email or user_id" lists get an email.
      const queryValues: Record<string, string> = { email: 'ann@a-side.example', from: '2026-01-01', to: '2026-12-31' };
      const query = new URLSearchParams(
        (op.parameters ?? [])
          .filter((p) => p.in === 'query' && (p.required || (p.name === 'email' && /users$|payments$/.test(op.path))))
          .map((p): [string, string] => [p.name, queryValues[p.name] ?? 'x']),
      ).toString();
      const res = await call(system.gatewayUrl, op.method.toUpperCase(), `${path}${query ? `?${query}` : ''}`, {
        auth: b.auth,
        ...(body !== undefined ? { json: body } : {}),
      });
      tried++;
      if (params.length > 0) {
        // Another client's resource is answered like one that does not exist.
        if (res.status !== 404)
          problems.push(`${op.method.toUpperCase()} ${op.path} with A's ids answered ${res.status}: ${res.text.slice(0, 200)}`);
      } else if (res.status < 300) {
        // B's own lists and creations: none may show or link anything of A's.
        const leaked = aIds.filter((id) => res.text.includes(id));
        if (leaked.length) problems.push(`${op.method.toUpperCase()} ${op.path} answered ${res.status} naming A's ${leaked.join(', ')}`);
      }
    }
    const erasures = await call(system.gatewayUrl, 'GET', `/v1/erasures?project_id=${a.projectId}`, { auth: b.auth });
    if (erasures.status !== 404 && aIds.some((id) => erasures.text.includes(id)))
      problems.push(`GET /v1/erasures?project_id=<A's> showed A's erasures`);

    expect(problems).toEqual([]);
    expect(tried).toBeGreaterThanOrEqual(operations.length - 1);

    // B cannot send as A: not from A's address on its own project, nor by adding A's domain, whose
    // records (A's) are all published: verifying it needs B's own ownership token.
    const asB = (method: string, path: string, json?: unknown) =>
      call(system.gatewayUrl, method, path, { auth: b.auth, ...(json !== undefined ? { json } : {}) });
    expect((await asB('PATCH', `/v1/projects/${b.projectId}`, { from_email: 'ceo@mail.a-side.example' })).status).toBe(422);
    const taken = await asB('POST', '/v1/sender-domains', { domain: 'mail.a-side.example' });
    expect(taken.status).toBe(201);
    const verified = await asB('POST', `/v1/sender-domains/${taken.body.id as string}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.status).not.toBe('verified');
    expect(
      (await asB('PATCH', `/v1/projects/${b.projectId}`, { sender_domain_id: taken.body.id, from_email: 'ceo@mail.a-side.example' }))
        .status,
    ).toBe(422);

    // A still has everything, untouched.
    const asA = (path: string) => call(system.gatewayUrl, 'GET', path, { auth: a.auth });
    expect((await asA(`/v1/projects/${a.projectId}`)).body.name).toBe('E2E project');
    expect((await asA(`/v1/projects/${a.projectId}/emails/${ids['emailKey']!}`)).status).toBe(200);
    expect((await asA(`/v1/webhooks/${ids['webhookId']!}`)).body.description ?? null).toBeNull();
    expect((await asA(`/v1/sender-domains/${ids['senderDomainId']!}`)).body.status).toBe('verified');
    expect((await asA('/v1/keys')).body.data[0].revoked_at ?? null).toBeNull();
    const user = await asA(`/v1/projects/${a.projectId}/users/ann-1`);
    expect(user.status).toBe(200);
    expect(JSON.stringify(user.body)).not.toContain('stolen');
  }, 180_000);
});
