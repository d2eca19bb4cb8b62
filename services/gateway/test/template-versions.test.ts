import { call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

describe('templates for teams: drafts, publishing, layouts and language variants', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let other: TestClient;
  let project: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    [acme, other] = await Promise.all([createTestClient(gw.config), createTestClient(gw.config)]);
    project = (await call(gw.url, 'POST', '/v1/projects', { auth: acme.auth, json: { name: 'Shop' } })).body.id;
  });

  afterAll(async () => {
    await gw?.stop();
  });

  const as = (client: TestClient) => (method: string, path: string, json?: unknown) =>
    call(gw.url, method, `/v1/projects/${project}${path}`, { auth: client.auth, ...(json !== undefined ? { json } : {}) });
  const welcome = { name: 'Welcome', subject: 'Welcome, {{user.name}}', html: '<p>Hi {{user.name}}</p>' };

  it('a draft is the newest version but not the published one, until it is published; an older version can be published again', async () => {
    const api = as(acme);
    const created = await api('POST', '/templates', welcome);
    expect(created.body).toMatchObject({ version: 1, latest_version: 1, published_version: 1, format: 'handlebars', variants: [] });
    expect(created.body.saved_by).toEqual({ key_id: expect.any(String), via: 'key' });
    const id = created.body.id as string;

    const draft = await api('PUT', `/templates/${id}`, { ...welcome, subject: 'Draft: {{user.name}}', draft: true });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ version: 2, latest_version: 2, published_version: 1, subject: 'Draft: {{user.name}}' });
    expect((await api('GET', `/templates/${id}`)).body).toMatchObject({ version: 2, published_version: 1 });
    const versions = (await api('GET', `/templates/${id}/versions`)).body.data as Array<{ version: number; published: boolean }>;
    expect(versions.map((v) => [v.version, v.published])).toEqual([
      [2, false],
      [1, true],
    ]);
    // The preview takes ?version= (and the body's version, which must agree).
    const preview = await api('POST', `/templates/${id}/preview?version=1`, { user: { name: 'Ann' } });
    expect(preview.body.subject).toBe('Welcome, Ann');
    expect((await api('POST', `/templates/${id}/preview?version=1`, { version: 2 })).status).toBe(422);

    const published = await api('POST', `/templates/${id}/versions/2/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ version: 2, latest_version: 2, published_version: 2 });
    const rolledBack = await api('POST', `/templates/${id}/versions/1/publish`);
    expect(rolledBack.body).toMatchObject({ version: 1, latest_version: 2, published_version: 1, subject: 'Welcome, {{user.name}}' });
    expect((await api('POST', `/templates/${id}/versions/7/publish`)).status).toBe(404);
    expect((await as(other)('POST', `/templates/${id}/versions/1/publish`)).status).toBe(404);
    // A save without draft publishes at once, as before drafts existed.
    expect((await api('PUT', `/templates/${id}`, welcome)).body).toMatchObject({ version: 3, published_version: 3 });
  });

  it('a layout puts {{{content}}} exactly once, wraps the body in previews, and cannot go while a published template uses it', async () => {
    const api = as(acme);
    // A layout that does not parse is a 422 as well: a layout's grammar is beyond what a schema says.
    for (const html of ['<main>no slot</main>', '<main>{{{content}}}{{{ content }}}</main>', '<main>\n{{#if x}}{{{content}}}</main>']) {
      const refused = await api('POST', '/layouts', { name: 'Bad', html });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/html' })]);
    }
    const refusedText = await api('POST', '/layouts', { name: 'Bad', html: '<main>{{{content}}}</main>', text: 'no slot' });
    expect(refusedText.body.errors).toEqual([expect.objectContaining({ pointer: '/text' })]);

    const layout = await api('POST', '/layouts', {
      name: 'Brand',
      html: '<header>Head {{user.name}}</header>{{{content}}}<footer>Foot {{data.company}}</footer>',
      text: 'Head\n{{{content}}}\nFoot',
    });
    expect(layout.status).toBe(201);
    expect(layout.body).toMatchObject({ version: 1, published_version: 1 });
    const layoutId = layout.body.id as string;

    const template = await api('POST', '/templates', { ...welcome, text: 'Hi {{user.name}}', layout_id: layoutId });
    expect(template.status).toBe(201);
    const preview = await api('POST', `/templates/${template.body.id}/preview`, { user: { name: 'Ann <b>' }, data: { company: 'ACME' } });
    expect(preview.body.html).toBe('<header>Head Ann &lt;b&gt;</header><p>Hi Ann &lt;b&gt;</p><footer>Foot ACME</footer>');
    expect(preview.body.text).toBe('Head\nHi Ann <b>\nFoot');

    // A layout draft is not what templates are rendered in until it is published.
    const draft = await api('PUT', `/layouts/${layoutId}`, { name: 'Brand', html: '<div>New {{{content}}}</div>', draft: true });
    expect(draft.body).toMatchObject({ version: 2, published_version: 1 });
    expect((await api('POST', `/templates/${template.body.id}/preview`, {})).body.html).toMatch(/^<header>/);
    await api('POST', `/layouts/${layoutId}/versions/2/publish`);
    expect((await api('POST', `/templates/${template.body.id}/preview`, {})).body.html).toBe('<div>New <p>Hi </p></div>');

    const inUse = await api('DELETE', `/layouts/${layoutId}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.detail).toContain('"Welcome"');
    await api('PUT', `/templates/${template.body.id}`, welcome);
    expect((await api('DELETE', `/layouts/${layoutId}`)).status).toBe(204);
    // The version that named it cannot come back while the layout is gone.
    const back = await api('POST', `/templates/${template.body.id}/versions/1/publish`);
    expect(back.status).toBe(422);
    expect(back.body.errors).toEqual([expect.objectContaining({ pointer: '/layout_id' })]);
    expect((await api('POST', '/templates', { ...welcome, layout_id: layoutId })).status).toBe(422);
  });

  it('variants: one per language, picked in previews by exact tag, then primary subtag, then the default', async () => {
    const api = as(acme);
    const repeated = await api('POST', '/templates', {
      ...welcome,
      variants: [
        { language: 'de', subject: 'Willkommen', html: '<p>Hallo</p>' },
        { language: 'DE', subject: 'Willkommen', html: '<p>Hallo</p>' },
      ],
    });
    expect(repeated.status).toBe(422);
    expect(repeated.body.errors).toEqual([expect.objectContaining({ pointer: '/variants/1/language' })]);
    const broken = await api('POST', '/templates', {
      ...welcome,
      variants: [{ language: 'de', subject: 'Willkommen', html: '<p>\n{{#if x}}Hallo</p>' }],
    });
    expect(broken.status).toBe(400);
    expect(broken.body.errors).toEqual([expect.objectContaining({ pointer: '/variants/0/html' })]);

    const created = await api('POST', '/templates', {
      ...welcome,
      variants: [
        { language: 'de', subject: 'Willkommen, {{user.name}}', html: '<p>Hallo {{user.name}}</p>' },
        { language: 'pt', subject: 'Bem-vindo, {{user.name}}', html: '<p>Olá {{user.name}}</p>' },
      ],
    });
    expect(created.status).toBe(201);
    const subject = async (language?: string) =>
      (await api('POST', `/templates/${created.body.id}/preview`, { user: { name: 'Ann' }, ...(language ? { language } : {}) })).body
        .subject;
    expect(await subject('DE')).toBe('Willkommen, Ann');
    expect(await subject('pt-BR')).toBe('Bem-vindo, Ann');
    expect(await subject('fr')).toBe('Welcome, Ann');
    expect(await subject()).toBe('Welcome, Ann');
  });

  it('validate checks the variants and the layout named, and lists what the layout reads too', async () => {
    const api = as(acme);
    const layout = (await api('POST', '/layouts', { name: 'Plain', html: '<div>{{data.footer}}{{{content}}}</div>' })).body.id as string;
    const checked = await api('POST', '/templates/validate', {
      subject: 'Hi',
      html: '<p>{{user.name}}</p>',
      layout_id: layout,
      variants: [{ language: 'de', subject: 'Hallo', html: '<p>\n{{#each data.items}}x</p>' }],
    });
    expect(checked.status).toBe(200);
    expect(checked.body.valid).toBe(false);
    expect(checked.body.errors).toEqual([expect.objectContaining({ field: 'variants/0/html', line: 2 })]);
    expect(checked.body.variables).toEqual(['data.footer', 'user.name']);

    const missing = await api('POST', '/templates/validate', { html: '<p>x</p>', layout_id: '64b7f0c2a1e4d5f6a7b8c9d0' });
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'layout_id' })]);

    const fine = await api('POST', '/templates/validate', {
      subject: 'Hi',
      html: '<p>Hi {{user.name}}</p>',
      layout_id: layout,
      variants: [{ language: 'de', subject: 'Hallo', html: '<p>Hallo {{user.name}}</p>' }],
      user: { name: 'Ann' },
      data: { footer: 'F' },
      language: 'de-AT',
    });
    expect(fine.body).toMatchObject({ valid: true, errors: [], rendered: { subject: 'Hallo', html: '<div>F<p>Hallo Ann</p></div>' } });
  });

  it('MJML: compiled to HTML tables after Handlebars put in the values, escaped; invalid MJML is a 422 naming the line; no layout around it', async () => {
    const api = as(acme);
    const mjml = [
      '<mjml>',
      '  <mj-body>',
      '    <mj-section><mj-column>',
      '      <mj-text>Hi {{user.name}}</mj-text>',
      '    </mj-column></mj-section>',
      '  </mj-body>',
      '</mjml>',
    ].join('\n');
    const created = await api('POST', '/templates', { name: 'Responsive', subject: 'Hi', html: mjml, format: 'mjml' });
    expect(created.status).toBe(201);
    expect(created.body.format).toBe('mjml');
    const preview = await api('POST', `/templates/${created.body.id}/preview`, { user: { name: '<b>Ann</b>' } });
    expect(preview.status).toBe(200);
    expect(preview.body.html).toContain('<table');
    expect(preview.body.html).not.toMatch(/<\/?mj-/);
    expect(preview.body.html).toContain('Hi &lt;b&gt;Ann&lt;/b&gt;');

    const invalid = await api('POST', '/templates', {
      name: 'Bad',
      subject: 'Hi',
      format: 'mjml',
      html: mjml.replace('<mj-text>', '<mj-nope>').replace('</mj-text>', '</mj-nope>'),
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual([{ pointer: '/html', message: expect.stringMatching(/^MJML: line 4: /) }]);
    const layout = (await api('POST', '/layouts', { name: 'L', html: '<div>{{{content}}}</div>' })).body.id as string;
    const wrapped = await api('POST', '/templates', { name: 'Wrapped', subject: 'Hi', format: 'mjml', html: mjml, layout_id: layout });
    expect(wrapped.status).toBe(422);
    expect(wrapped.body.errors).toEqual([expect.objectContaining({ pointer: '/layout_id' })]);
    const checked = await api('POST', '/templates/validate', {
      subject: 'Hi',
      format: 'mjml',
      html: mjml.replace('<mj-text>', '<mj-nope>').replace('</mj-text>', '</mj-nope>'),
    });
    expect(checked.body).toMatchObject({ valid: false, errors: [{ field: 'html', line: 4 }] });
  });

  it("another client's layouts are not there for a client", async () => {
    const layout = (await as(acme)('POST', '/layouts', { name: 'Mine', html: '<div>{{{content}}}</div>' })).body.id as string;
    const theirs = as(other);
    const otherProject = (await call(gw.url, 'POST', '/v1/projects', { auth: other.auth, json: { name: 'Theirs' } })).body.id as string;
    expect((await theirs('GET', `/layouts/${layout}`)).status).toBe(404);
    const named = await call(gw.url, 'POST', `/v1/projects/${otherProject}/templates`, {
      auth: other.auth,
      json: { ...welcome, layout_id: layout },
    });
    expect(named.status).toBe(422);
    expect(named.body.errors).toEqual([expect.objectContaining({ pointer: '/layout_id' })]);
  });
});
