import { call } from '@postbus/testing';
import { withGatewayAndProject, type TestClient, type TestGateway } from './helpers';

/** Issue 13.5: keys a document store refuses never get past the door, nor do objects too deep or too large for a bus record. */
describe('free-form objects (data, custom fields, payment metadata)', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let projectId: string;

  withGatewayAndProject((started) => ({ gw, acme, projectId } = started));

  const send = (json: unknown) => call(gw.url, 'POST', `/v1/projects/${projectId}/emails/welcome/send`, { auth: acme.auth, json });
  const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { level: nested(depth - 1) });
  const pointers = (body: { errors?: Array<{ pointer: string }> }) => (body.errors ?? []).map((e) => e.pointer);

  it('13.5 poisoned batches: a NUL byte in a data key is refused with 400 naming the pointer', async () => {
    const res = await send({ user: { email: 'ann@example.com' }, data: { order: { 'sku\u0000x': 1 } } });
    expect(res.status).toBe(400);
    expect(pointers(res.body)).toEqual(['/data/order/sku\u0000x']);
  });

  it.each([
    ['a leading $ at the top of data', { data: { $where: 1 } }, '/data/$where'],
    ['a dot deep in data', { data: { items: [{ 'a.b': 1 }] } }, '/data/items/0/a.b'],
    ['a $ key inside a custom field', { user: { email: 'ann@example.com', prefs: { $set: 1 } } }, '/user/prefs/$set'],
  ])('13.5 poisoned batches: %s is refused with 400 naming the pointer', async (_, body, pointer) => {
    const res = await send({ user: { email: 'ann@example.com' }, ...body });
    expect(res.status).toBe(400);
    expect(pointers(res.body)).toContain(pointer);
  });

  it('13.5 poisoned batches: bad keys in user fields and payment metadata are refused with 400', async () => {
    const user = await call(gw.url, 'POST', `/v1/projects/${projectId}/users`, {
      auth: acme.auth,
      json: { email: 'ann@example.com', fields: { prefs: { 'a\u0000': true } } },
    });
    expect(user.status).toBe(400);
    expect(pointers(user.body)).toEqual(['/fields/prefs/a\u0000']);
    const payment = await call(gw.url, 'POST', `/v1/projects/${projectId}/payments`, {
      auth: acme.auth,
      json: { email: 'ann@example.com', payment_id: 'p1', amount: 100, currency: 'EUR', metadata: { 'x.y': 1 } },
    });
    expect(payment.status).toBe(400);
    expect(pointers(payment.body)).toEqual(['/metadata/x.y']);
  });

  it('13.5 poisoned batches: data nested deeper than the limit is a 400 naming where', async () => {
    const res = await send({ user: { email: 'ann@example.com' }, data: { deep: nested(40) } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/deeper than 16/);
    expect(res.body.errors[0].pointer).toMatch(/^\/data\/deep(\/level)+$/);
  });

  it('13.5 poisoned batches: a body nested thousands of levels deep is a 400, not a crash', async () => {
    const raw = `{"user":{"email":"ann@example.com"},"data":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    const res = await call(gw.url, 'POST', `/v1/projects/${projectId}/emails/welcome/send`, {
      auth: acme.auth,
      raw,
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
  });

  it('13.5 poisoned batches: data over 256 KB is a 413, though the body is under the body limit', async () => {
    const res = await send({ user: { email: 'ann@example.com' }, data: { blob: 'x'.repeat(300 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('13.6 per-request limits: 150 KB of control characters (900 KB as JSON) in data is a 413', async () => {
    const res = await send({ user: { email: 'ann@example.com' }, data: { blob: '\u0001'.repeat(150 * 1024) } });
    expect(res.status).toBe(413);
  });

  it('13.6 per-request limits: a template whose parts pass 768 KB together (its catalog record would pass 1 MB) is a 413', async () => {
    const save = (html: string, text: string) =>
      call(gw.url, 'POST', `/v1/projects/${projectId}/templates`, { auth: acme.auth, json: { name: 't', subject: 's', html, text } });
    expect((await save('<p>é</p>'.repeat(40_000), 'plain')).status).toBe(201);
    expect((await save('é'.repeat(250_000), 'ü'.repeat(150_000))).status).toBe(413);
  });

  it('13.5 poisoned batches: the OpenAPI document states the key rule and the limits', async () => {
    const doc = await call(gw.url, 'GET', '/v1/openapi.json');
    const text = JSON.stringify(doc.body);
    expect(text).toContain('"x-document":{"maxDepth":16,"maxBytes":262144}');
    expect(text).toContain(JSON.stringify({ pattern: '^(?!\\$)[^\\u0000.]{1,128}$' }));
  });
});
