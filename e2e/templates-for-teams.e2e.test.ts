/** @postbus-system shared */
import { call, waitFor } from '@postbus/testing';
import { mailsAtSink } from './project-api';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

const DOMAIN = 'mail.teams.example';

/** A layout around the body: the user's name above it, a data value below, in the html and in the text. */
const BRAND_LAYOUT = {
  name: 'Brand',
  html: '<html><body><header>HEAD {{user.name}}</header>{{{content}}}<footer>FOOT {{data.company}}</footer></body></html>',
  text: 'HEAD\n{{{content}}}\nFOOT',
};

/** A small MJML document reading the user's name and a data value (line 1 is `<mjml>`). */
const MJML_DOCUMENT = [
  '<mjml>',
  '  <mj-body>',
  '    <mj-section>',
  '      <mj-column>',
  '        <mj-text>Hello {{user.name}}, {{data.note}}</mj-text>',
  '        <mj-button href="https://example.com/go">Go</mj-button>',
  '      </mj-column>',
  '    </mj-section>',
  '  </mj-body>',
  '</mjml>',
].join('\n');

/**
 * Templates for teams (issue 51) through the real stack: language variants picked by the user's
 * language, layouts around the body, drafts published and rolled back, validate with variants and
 * layouts, MJML compiled to HTML tables, and bad languages refused naming their field.
 */
describe('templates for teams: variants, layouts, drafts, MJML', () => {
  let system: RunningSystem;
  let client: DemoClient;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN });
  }, 120_000);

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, `/v1/projects/${client.projectId}${path}`, {
      auth: client.auth,
      ...(json !== undefined ? { json } : {}),
    });

  /** `status` or the test fails saying what the gateway answered. */
  const expectStatus = (res: { status: number; text: string }, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what} answered ${res.status}, not ${status}: ${res.text}`);
  };

  /** A template saved as `template` says, and an email `key` sending it; the template's id. */
  const emailWith = async (key: string, template: Record<string, unknown>): Promise<string> => {
    const created = await api('POST', '/templates', { name: `${key} template`, ...template });
    expectStatus(created, 201, `creating the template of ${key}`);
    const email = await api('POST', '/emails', { key, name: key, template_id: created.body.id });
    expectStatus(email, 201, `creating the email ${key}`);
    return created.body.id as string;
  };

  /** Triggers the email `key`; the message id. */
  const send = async (key: string, body: Record<string, unknown>): Promise<string> => {
    const res = await api('POST', `/emails/${key}/send`, body);
    expectStatus(res, 200, `sending ${key}`);
    return res.body.message_id as string;
  };

  /** The message's one mail at the sink. */
  const mailOf = async (id: string) => (await mailsAtSink(system, id, DOMAIN, 1))[0]!.mail;

  /** The message read once the mailer has sent it. */
  const sentRead = (id: string) =>
    waitFor(
      async () => {
        const read = await api('GET', `/messages/${id}`);
        return read.status === 200 && read.body.status === 'sent' ? (read.body as Record<string, unknown>) : undefined;
      },
      { timeoutMs: 30_000, what: `message ${id} sent` },
    );

  /** Fails unless each of `parts` is in `text` after the one before. */
  const expectInOrder = (text: string, parts: string[]) => {
    let from = 0;
    for (const part of parts) {
      const at = text.indexOf(part, from);
      if (at < 0) throw new Error(`${JSON.stringify(part)} is not after position ${from} in ${JSON.stringify(text)}`);
      from = at + part.length;
    }
  };

  const pointersOf = (body: { errors?: Array<{ pointer: string }> }) => (body.errors ?? []).map((e) => e.pointer);

  it('51.1 a send picks the variant by language: de exactly, pt-BR its primary subtag pt, fr the default; the send’s language before the user’s, the stored profile’s when the trigger names none', async () => {
    await emailWith('greeting', {
      subject: 'Hello {{user.name}}',
      html: '<p>Welcome {{user.name}}</p>',
      text: 'Welcome {{user.name}}',
      variants: [
        { language: 'de', subject: 'Hallo {{user.name}}', html: '<p>Willkommen {{user.name}}</p>', text: 'Willkommen {{user.name}}' },
        { language: 'pt', subject: 'Olá {{user.name}}', html: '<p>Bem-vindo {{user.name}}</p>', text: 'Bem-vindo {{user.name}}' },
      ],
    });
    // A profile whose language only the users service knows: created first, readable before the send.
    const created = await api('POST', '/users', { email: 'petra@teams.example', fields: { name: 'Petra', language: 'de' } });
    expectStatus(created, 200, 'creating the profile');
    await waitFor(
      async () => {
        const read = await api('GET', '/users?email=petra@teams.example');
        return read.status === 200 && read.body.language === 'de' ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the profile with language de' },
    );

    const sends = [
      { user: { email: 'dora@teams.example', name: 'Dora', language: 'de' } },
      { user: { email: 'paulo@teams.example', name: 'Paulo', language: 'pt-BR' } },
      { user: { email: 'fleur@teams.example', name: 'Fleur', language: 'fr' } },
      { user: { email: 'franz@teams.example', name: 'Franz', language: 'fr' }, language: 'de' },
      { user: { email: 'petra@teams.example' } },
    ];
    const ids = await Promise.all(sends.map((body) => send('greeting', body)));
    const [mails, reads] = await Promise.all([Promise.all(ids.map(mailOf)), Promise.all(ids.map(sentRead))]);

    expect(mails.map((m) => m.Subject)).toEqual([
      'Hallo Dora',
      'Olá Paulo',
      'Hello Fleur',
      'Hallo Franz',
      expect.stringMatching(/^Hallo\b/), // the stored profile's language; its name is not what this proves
    ]);
    expect(mails[0]!.HTML).toContain('Willkommen Dora');
    expect(mails[0]!.Text).toContain('Willkommen Dora');
    expect(mails[1]!.HTML).toContain('Bem-vindo Paulo');
    expect(mails[2]!.HTML).toContain('Welcome Fleur');
    expect(mails[3]!.HTML).toContain('Willkommen Franz');
    expect(mails[4]!.HTML).toContain('Willkommen');
    expect(reads.map((r) => r['language'])).toEqual(['de', 'pt', null, 'de', 'de']);
  }, 90_000);

  it('51.2 a layout wraps the body in order with the user and data escaped, a bad slot is refused, a draft is not sent until published, and a layout in use is not deleted', async () => {
    const layout = await api('POST', '/layouts', BRAND_LAYOUT);
    expectStatus(layout, 201, 'creating the layout');
    expect(layout.body).toMatchObject({ name: 'Brand', version: 1, latest_version: 1, published_version: 1, text: BRAND_LAYOUT.text });
    const layoutId = layout.body.id as string;
    const framedId = await emailWith('framed', {
      subject: 'Framed',
      html: '<p>BODY {{data.code}}</p>',
      text: 'BODY {{data.code}}',
      layout_id: layoutId,
    });

    const framed = { user: { email: 'ann@teams.example', name: 'Ann <b>' }, data: { company: 'Acme', code: '42' } };
    const first = await mailOf(await send('framed', framed));
    expect(first.Subject).toBe('Framed');
    expectInOrder(first.HTML, ['<header>HEAD Ann &lt;b&gt;</header>', '<p>BODY 42</p>', '<footer>FOOT Acme</footer>']);
    expect(first.HTML).not.toContain('Ann <b>');
    // The layout's own text around the body's text (a text derived from the wrapped HTML would name Ann and Acme).
    expect(first.Text.replace(/\r\n/g, '\n').trim()).toBe('HEAD\nBODY 42\nFOOT');

    // The slot exactly once: none, or twice, names /html.
    const without = await api('POST', '/layouts', { name: 'No slot', html: '<html><body>nothing here</body></html>' });
    expect(without.status).toBe(422);
    expect(pointersOf(without.body)).toContain('/html');
    const twice = await api('POST', '/layouts', { name: 'Two slots', html: '<div>{{{content}}}</div><div>{{{content}}}</div>' });
    expect(twice.status).toBe(422);
    expect(pointersOf(twice.body)).toContain('/html');

    // A draft of the layout changes nothing sent until it is published.
    const draft = await api('PUT', `/layouts/${layoutId}`, {
      ...BRAND_LAYOUT,
      html: BRAND_LAYOUT.html.replace('HEAD', 'NEWHEAD'),
      draft: true,
    });
    expectStatus(draft, 200, 'saving the layout draft');
    expect(draft.body).toMatchObject({ version: 2, latest_version: 2, published_version: 1 });
    const beforePublish = await mailOf(await send('framed', framed));
    expect(beforePublish.HTML).toContain('<header>HEAD Ann &lt;b&gt;</header>');
    expect(beforePublish.HTML).not.toContain('NEWHEAD');
    const published = await api('POST', `/layouts/${layoutId}/versions/2/publish`);
    expectStatus(published, 200, 'publishing the layout draft');
    expect(published.body).toMatchObject({ version: 2, published_version: 2 });
    const afterPublish = await mailOf(await send('framed', framed));
    expectInOrder(afterPublish.HTML, ['<header>NEWHEAD Ann &lt;b&gt;</header>', '<p>BODY 42</p>', '<footer>FOOT Acme</footer>']);

    // In use by the template's published version: refused naming it; once a version without it is published, deleted.
    const inUse = await api('DELETE', `/layouts/${layoutId}`);
    expect(inUse.status).toBe(409);
    expect(inUse.text).toContain('framed template');
    const unframed = await api('PUT', `/templates/${framedId}`, {
      name: 'framed template',
      subject: 'Framed',
      html: '<p>BODY {{data.code}}</p>',
      text: 'BODY {{data.code}}',
    });
    expectStatus(unframed, 200, 'publishing the template without the layout');
    expect(unframed.body).toMatchObject({ layout_id: null, published_version: 2 });
    expect((await api('DELETE', `/layouts/${layoutId}`)).status).toBe(204);
    expect((await api('GET', `/layouts/${layoutId}`)).status).toBe(404);
  }, 90_000);

  it('51.3 a draft is not sent until published, then a rollback sends the old version again; the versions list who saved each and which is published', async () => {
    const templateId = await emailWith('drafted', { subject: 'Version one', html: '<p>one</p>' });
    const user = (n: number) => ({ user: { email: `draft-${n}@teams.example`, name: 'Dee' } });

    const draft = await api('PUT', `/templates/${templateId}`, {
      name: 'drafted template',
      subject: 'Version two',
      html: '<p>two</p>',
      draft: true,
    });
    expectStatus(draft, 200, 'saving the draft');
    expect(draft.body).toMatchObject({ version: 2, latest_version: 2, published_version: 1 });
    const read = await api('GET', `/templates/${templateId}`);
    expect(read.body).toMatchObject({ version: 2, latest_version: 2, published_version: 1, subject: 'Version two' });

    const sentAs = async (n: number) => {
      const id = await send('drafted', user(n));
      const [mail, message] = await Promise.all([mailOf(id), sentRead(id)]);
      return { subject: mail.Subject, version: (message['template'] as { version: number }).version };
    };
    expect(await sentAs(1)).toEqual({ subject: 'Version one', version: 1 });

    const publishTwo = await api('POST', `/templates/${templateId}/versions/2/publish`);
    expectStatus(publishTwo, 200, 'publishing version 2');
    expect(publishTwo.body).toMatchObject({ version: 2, published_version: 2, subject: 'Version two' });
    expect(await sentAs(2)).toEqual({ subject: 'Version two', version: 2 });

    const rollback = await api('POST', `/templates/${templateId}/versions/1/publish`);
    expectStatus(rollback, 200, 'publishing version 1 again');
    expect(rollback.body).toMatchObject({ version: 1, latest_version: 2, published_version: 1, subject: 'Version one' });
    expect(await sentAs(3)).toEqual({ subject: 'Version one', version: 1 });

    const versions = await api('GET', `/templates/${templateId}/versions`);
    expect(versions.status).toBe(200);
    const savedBy = { key_id: expect.stringMatching(/^key_/), via: 'key' };
    expect(versions.body.data).toEqual([
      { version: 2, created_at: expect.any(String), saved_by: savedBy, published: false },
      { version: 1, created_at: expect.any(String), saved_by: savedBy, published: true },
    ]);

    const preview = await api('POST', `/templates/${templateId}/preview?version=2`, { user: { name: 'Dee' } });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ subject: 'Version two', html: expect.stringContaining('two') });
    expect((await api('POST', `/templates/${templateId}/versions/9/publish`)).status).toBe(404);
  }, 90_000);

  it('51.4 validate names line 2 of a variant’s broken html, and a layout_id the project does not have', async () => {
    const broken = await api('POST', '/templates/validate', {
      subject: 'Hi {{user.name}}',
      html: '<p>Hi {{user.name}}</p>',
      variants: [{ language: 'de', subject: 'Hallo', html: '<p>Hallo</p>\n<p>{{user.name}</p>' }],
    });
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({ valid: false, rendered: null });
    expect(broken.body.errors).toEqual([{ field: 'variants/0/html', line: 2, column: expect.any(Number), message: expect.any(String) }]);

    const missingLayout = await api('POST', '/templates/validate', { html: '<p>x</p>', layout_id: '0123456789abcdef01234567' });
    expect(missingLayout.status).toBe(200);
    expect(missingLayout.body.valid).toBe(false);
    expect(missingLayout.body.errors).toEqual([expect.objectContaining({ field: 'layout_id' })]);
  });

  it('51.5 an MJML template arrives as HTML tables with no mj- tags and its values escaped; invalid MJML and an MJML template with a layout are refused at save', async () => {
    await emailWith('responsive', { format: 'mjml', subject: 'Responsive {{user.name}}', html: MJML_DOCUMENT });
    const id = await send('responsive', {
      user: { email: 'max@teams.example', name: 'Max <i>' },
      data: { note: '<script>alert(1)</script>' },
    });
    const mail = await mailOf(id);
    expect(mail.Subject).toBe('Responsive Max <i>');
    expect(mail.HTML).toContain('<table');
    // MJML's own CSS classes (mj-column-per-100, mj-outlook-group-fix) may stay: no MJML element does.
    expect(mail.HTML).not.toMatch(/<\/?mj-/i);
    expect(mail.HTML).not.toContain('<mjml');
    expect(mail.HTML).toContain('Hello Max &lt;i&gt;');
    expect(mail.HTML).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.HTML).not.toContain('<script>');

    const invalid = await api('POST', '/templates', {
      name: 'Bad MJML',
      format: 'mjml',
      subject: 'x',
      html: '<mjml>\n  <mj-body>\n    <mj-nope>x</mj-nope>\n  </mj-body>\n</mjml>',
    });
    expect({ status: invalid.status, errors: invalid.body.errors }).toEqual({
      status: 422,
      errors: [{ pointer: '/html', message: expect.stringMatching(/line 3\b/) }],
    });

    const layout = await api('POST', '/layouts', { ...BRAND_LAYOUT, name: 'For MJML' });
    expectStatus(layout, 201, 'creating a layout');
    const withLayout = await api('POST', '/templates', {
      name: 'MJML in a layout',
      format: 'mjml',
      subject: 'x',
      html: MJML_DOCUMENT,
      layout_id: layout.body.id,
    });
    expect(withLayout.status).toBe(422);
    expect(pointersOf(withLayout.body)).toEqual(['/layout_id']);
  }, 60_000);

  it('51.6 a send naming a language that is no BCP 47 tag is a 400 naming /language; variants de and DE are a 422 naming the second', async () => {
    const badTag = await api('POST', '/emails/welcome/send', { user: { email: 'tag@teams.example' }, language: 'not a tag!' });
    expect(badTag.status).toBe(400);
    expect(pointersOf(badTag.body)).toContain('/language');

    const twice = await api('POST', '/templates', {
      name: 'Twice German',
      subject: 'Hello',
      html: '<p>Hello</p>',
      variants: [
        { language: 'de', subject: 'Hallo', html: '<p>Hallo</p>' },
        { language: 'DE', subject: 'Hallo', html: '<p>Hallo</p>' },
      ],
    });
    expect(twice.status).toBe(422);
    expect(pointersOf(twice.body)).toEqual(['/variants/1/language']);
  });
});
