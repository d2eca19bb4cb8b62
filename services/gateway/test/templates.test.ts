import { call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe('templates', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let other: TestClient;
  let base: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
    const project = await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } });
    base = `/v1/projects/${project.body.id}/templates`;
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const welcome = { name: 'Welcome', subject: 'Welcome, {{user.name}}!', html: '<h1>Hi {{user.name}}</h1><p>Your plan: {{data.plan}}</p>' };

  it('when a template has a syntax error, then it is refused with 400 naming the part and where', async () => {
    const res = await call(gw.url, 'POST', base, { auth: acme.auth, json: { ...welcome, html: '<p>\n{{#if data.vip}}VIP</p>' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { pointer: '/html', message: expect.stringMatching(/^template syntax error: line 2, column \d+, Expecting/) },
    ]);
  });

  it('is saved, versioned on every PUT with old versions readable, and previews with user and data, escaping HTML in values', async () => {
    const created = await call(gw.url, 'POST', base, { auth: acme.auth, json: welcome });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Welcome', version: 1, latest_version: 1, text: null });
    const id = created.body.id as string;

    const v2 = await call(gw.url, 'PUT', `${base}/${id}`, {
      auth: acme.auth,
      json: { ...welcome, subject: 'Welcome aboard, {{user.name}}' },
    });
    expect(v2.body).toMatchObject({ version: 2, latest_version: 2, subject: 'Welcome aboard, {{user.name}}' });
    expect((await call(gw.url, 'GET', `${base}/${id}`, { auth: acme.auth })).body.version).toBe(2);
    const v1 = await call(gw.url, 'GET', `${base}/${id}?version=1`, { auth: acme.auth });
    expect(v1.body).toMatchObject({ version: 1, latest_version: 2, subject: 'Welcome, {{user.name}}!' });
    expect((await call(gw.url, 'GET', `${base}/${id}?version=9`, { auth: acme.auth })).status).toBe(404);
    // When each version was saved, newest first.
    const versions = await call(gw.url, 'GET', `${base}/${id}/versions`, { auth: acme.auth });
    expect(versions.status).toBe(200);
    const savedBy = { key_id: expect.any(String), via: 'key' };
    expect(versions.body.data).toEqual([
      { version: 2, created_at: v2.body.updated_at, saved_by: savedBy, published: true },
      { version: 1, created_at: created.body.created_at, saved_by: savedBy, published: false },
    ]);

    const preview = await call(gw.url, 'POST', `${base}/${id}/preview`, {
      auth: acme.auth,
      json: { user: { name: 'Ann <script>' }, data: { plan: 'Pro & more' } },
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      subject: 'Welcome aboard, Ann <script>',
      html: '<h1>Hi Ann &lt;script&gt;</h1><p>Your plan: Pro &amp; more</p>',
      text: expect.stringContaining('Your plan: Pro & more'),
    });
    const old = await call(gw.url, 'POST', `${base}/${id}/preview`, { auth: acme.auth, json: { user: { name: 'Ann' }, version: 1 } });
    expect(old.body.subject).toBe('Welcome, Ann!');
    expect((await call(gw.url, 'GET', base, { auth: acme.auth })).body.data.map((t: { id: string }) => t.id)).toContain(id);
  });

  it("another client never sees or touches a client's templates", async () => {
    const created = await call(gw.url, 'POST', base, { auth: acme.auth, json: welcome });
    const id = created.body.id as string;
    expect((await call(gw.url, 'GET', base, { auth: other.auth })).status).toBe(404);
    expect((await call(gw.url, 'GET', `${base}/${id}`, { auth: other.auth })).status).toBe(404);
    expect((await call(gw.url, 'GET', `${base}/${id}/versions`, { auth: other.auth })).status).toBe(404);
    expect((await call(gw.url, 'PUT', `${base}/${id}`, { auth: other.auth, json: welcome })).status).toBe(404);
    expect((await call(gw.url, 'POST', `${base}/${id}/preview`, { auth: other.auth, json: {} })).status).toBe(404);
    expect((await call(gw.url, 'DELETE', `${base}/${id}`, { auth: other.auth })).status).toBe(404);
    expect((await call(gw.url, 'DELETE', `${base}/${id}`, { auth: acme.auth })).status).toBe(204);
    expect((await call(gw.url, 'GET', `${base}/${id}`, { auth: acme.auth })).status).toBe(404);
  });

  it('renders an unsaved draft for the live preview, saving nothing; a draft that does not parse is a 400 naming the part', async () => {
    const before = (await call(gw.url, 'GET', base, { auth: acme.auth })).body.data.length as number;
    const draftPreview = base.replace(/\/templates$/, '/template-preview');
    const draft = await call(gw.url, 'POST', draftPreview, {
      auth: acme.auth,
      json: { subject: 'Hi {{user.name}}', html: '<p>{{data.code}} for {{user.name}}</p>', user: { name: 'Ann <b>' }, data: { code: 42 } },
    });
    expect(draft.status).toBe(200);
    expect(draft.body).toEqual({ subject: 'Hi Ann <b>', html: '<p>42 for Ann &lt;b&gt;</p>', text: '42 for Ann <b>' });
    expect((await call(gw.url, 'GET', base, { auth: acme.auth })).body.data).toHaveLength(before);

    const broken = await call(gw.url, 'POST', draftPreview, { auth: acme.auth, json: { subject: 'x', html: '{{#if a}}' } });
    expect(broken.status).toBe(400);
    expect(broken.body.errors).toEqual([{ pointer: '/html', message: expect.stringMatching(/^template syntax error/) }]);
    expect((await call(gw.url, 'POST', draftPreview, { auth: other.auth, json: { subject: 'x', html: 'y' } })).status).toBe(404);
  });
});
