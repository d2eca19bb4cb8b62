/** @postbus-system shared */
import type { Page } from 'playwright-core';
import { call, waitFor } from '@postbus/testing';
import { openPanelBrowser, type PanelBrowser } from './browser';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';

const HTML = '<h1>Hi {{user.name}}</h1>\n<p>Your code is <strong>{{data.code}}</strong>.</p>\n';
const GERMAN = {
  language: 'de',
  subject: 'Willkommen, {{user.name}}',
  html: '<h1>Hallo {{user.name}}</h1>\n<p>Dein Code ist <strong>{{data.code}}</strong>.</p>\n<p>Viel Spaß!</p>\n',
};
/** The draft's German: a line changed, a line added. */
const GERMAN_DRAFT = {
  language: 'de',
  subject: 'Willkommen zurück, {{user.name}}',
  html: '<h1>Hallo {{user.name}}</h1>\n<p>Dein Anmeldecode ist <strong>{{data.code}}</strong>.</p>\n<p>Er gilt 10 Minuten.</p>\n<p>Viel Spaß!</p>\n',
};

/**
 * Issue 51 in the panel, in a real browser against the running system: a template with a German
 * variant in a layout, a draft ahead of its published version compared side by side, published,
 * rolled back; the message log naming the language a send was rendered in; the layouts screen.
 */
describe('the template editor for teams in a real browser: languages, drafts, diffs, rollback, layouts (issue 51)', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let panel: PanelBrowser;
  let page: Page;
  let base: string;
  let templateId: string;

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, path, { auth: client.auth, ...(json !== undefined ? { json } : {}) });
  const p = () => `/v1/projects/${client.projectId}`;
  /** On failure, what the page showed: the first thing to look at. */
  const orShot = async <T>(name: string, step: Promise<T>): Promise<T> =>
    step.catch(async (error: unknown) => {
      await panel.shot(`failure-teams-${name}`);
      throw error;
    });
  const published = async () => (await api('GET', `${p()}/templates/${templateId}`)).body.published_version as number;

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    // Version 1: the default only. Version 2 (published): a German variant, both in the layout. Version 3: a draft of new German.
    ({ templateId } = await createSendableEmail(system, client, {
      domain: 'mail.teams.e2e.example',
      subject: 'Welcome, {{user.name}}',
      html: HTML,
    }));
    const layout = await api('POST', `${p()}/layouts`, {
      name: 'Branded',
      // Styled inline: the preview's frame has a policy of its own, which lets inline styles apply (the panel's refuses them).
      html: '<header style="color: #334155"><strong>Acme</strong></header>\n<hr>\n{{{content}}}\n<hr>\n<footer>Sent to {{user.email}}</footer>\n',
    });
    expect(layout.status).toBe(201);
    const layoutId = layout.body.id as string;
    const template = { name: 'Welcome', subject: 'Welcome, {{user.name}}', html: HTML, layout_id: layoutId };
    const v2 = await api('PUT', `${p()}/templates/${templateId}`, { ...template, variants: [{ ...GERMAN, layout_id: layoutId }] });
    expect(v2.status).toBe(200);
    const v3 = await api('PUT', `${p()}/templates/${templateId}`, {
      ...template,
      variants: [{ ...GERMAN_DRAFT, layout_id: layoutId }],
      draft: true,
    });
    expect(v3.status).toBe(200);
    expect(v3.body).toMatchObject({ version: 3, latest_version: 3, published_version: 2 });
    base = `${system.gatewayUrl}/admin`;
    panel = await openPanelBrowser();
    page = panel.page;
  }, 120_000);

  afterAll(async () => {
    await panel?.browser.close();
  });

  it('shows the draft ahead of the published version, edits its German in the de tab, and compares the two versions side by side', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL('**/admin/sign-in');
    await page.getByLabel('Client ID').fill(client.clientId);
    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
    await page.goto(`${base}/projects/${client.projectId}/templates/${templateId}`);
    await orShot('badge', page.getByText('Draft v3 · published v2').waitFor());

    const languages = page.getByRole('tablist', { name: 'Languages' });
    await expect(languages.getByRole('tab').allTextContents()).resolves.toEqual(['Default', 'de']);
    await languages.getByRole('tab', { name: 'de', exact: true }).click();
    await expect(page.getByLabel('Subject', { exact: true }).inputValue()).resolves.toBe(GERMAN_DRAFT.subject);
    await expect(page.getByLabel('Layout', { exact: true }).locator('option:checked').textContent()).resolves.toBe('Branded');
    // The preview follows the tab: the German draft, rendered by the API inside the layout.
    await expect(page.getByLabel('Preview language').inputValue()).resolves.toBe('de');
    await orShot(
      'preview',
      waitFor(async () => (await page.getByLabel('Rendered subject').textContent()) === 'Willkommen zurück, Ada Lovelace', {
        what: 'the German preview',
      }),
    );
    const rendered = page.frameLocator('iframe[title="Rendered email"]');
    await expect(rendered.locator('body').textContent()).resolves.toMatch(/Acme[\s\S]*Hallo Ada Lovelace[\s\S]*Sent to ada@example.com/);

    await page.getByRole('tab', { name: 'Versions' }).click();
    const versions = page.getByRole('list', { name: 'Versions' });
    await versions.getByRole('listitem').first().waitFor();
    // Saved through the API with the client's key: named by the key's name (the panel reads the keys).
    const keys = (await api('GET', '/v1/keys')).body.data as Array<{ name: string }>;
    await expect(versions.getByRole('listitem').allTextContents()).resolves.toEqual([
      expect.stringMatching(new RegExp(`^v3draftin the editorkey “${keys[0]!.name}” · \\S`)),
      expect.stringMatching(new RegExp(`^v2publishedkey “${keys[0]!.name}” · .*Open$`)),
      expect.stringMatching(/^v1.*OpenRoll back$/),
    ]);
    await page.getByRole('checkbox', { name: 'Compare version 2' }).check();
    await page.getByRole('checkbox', { name: 'Compare version 3' }).check();
    await page.getByText('Comparing v2 and v3 · de').waitFor();
    const htmlDiff = page.getByRole('region', { name: 'HTML of version 2 and version 3' });
    await orShot('diff', htmlDiff.getByRole('table').waitFor());
    await expect(htmlDiff.getByRole('cell', { name: /^removed: / }).allTextContents()).resolves.toEqual([
      'removed: <p>Dein Code ist <strong>{{data.code}}</strong>.</p>',
    ]);
    await expect(htmlDiff.getByRole('cell', { name: /^added: / }).allTextContents()).resolves.toEqual([
      'added: <p>Dein Anmeldecode ist <strong>{{data.code}}</strong>.</p>',
      'added: <p>Er gilt 10 Minuten.</p>',
    ]);
    await expect(
      page
        .getByRole('region', { name: 'Subject of version 2 and version 3' })
        .getByRole('cell', { name: /^added: / })
        .textContent(),
    ).resolves.toBe(`added: ${GERMAN_DRAFT.subject}`);
    await panel.shot('template-editor-teams', false);
  }, 90_000);

  it('publishes the draft, then rolls back to version 2 after a confirmation', async () => {
    await page.getByRole('tab', { name: 'Versions' }).click();
    await page.getByRole('button', { name: 'Publish v3' }).click();
    await orShot('published', page.getByText('Published v3', { exact: true }).first().waitFor());
    await expect(published()).resolves.toBe(3);

    await page.getByRole('button', { name: 'Roll back to version 2' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roll back to version 2?' });
    await expect(dialog.textContent()).resolves.toContain('Sends use version 2 of this template from now on, in place of version 3.');
    await dialog.getByRole('button', { name: 'Publish version 2' }).click();
    await orShot('rolled-back', page.getByText('Draft v3 · published v2').waitFor());
    await expect(published()).resolves.toBe(2);
  }, 60_000);

  it('a send to a German-speaking user is rendered from the de variant, and the message log says so', async () => {
    const sent = await api('POST', `${p()}/emails/welcome/send`, {
      user: { email: 'hanna@example.com', name: 'Hanna', language: 'de-AT' },
      data: { code: '0815' },
    });
    expect(sent.status).toBe(200);
    await waitFor(
      async () => (await api('GET', `${p()}/messages?email=hanna@example.com`)).body?.data?.[0]?.subject === 'Willkommen, Hanna',
      {
        what: 'the message rendered in German',
        timeoutMs: 30_000,
      },
    );
    await page.goto(`${base}/projects/${client.projectId}/messages`);
    const row = page.getByRole('row').filter({ hasText: 'hanna@example.com' });
    await orShot('message-log', row.waitFor());
    await expect(row.getByTitle("Rendered in the template's de variant").textContent()).resolves.toBe('de');
    await expect(row.getByTitle('Sent through the API from template version 2').textContent()).resolves.toBe('welcome · de · API');
  }, 60_000);

  it('lists the layout on its screen, and refuses to delete it while the published template uses it, naming the template', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Layouts' }).click();
    await page.getByRole('heading', { name: 'Layouts', level: 1 }).waitFor();
    const item = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Branded' }) });
    await orShot('layouts', item.getByText('Published v1', { exact: true }).waitFor());
    await item.getByRole('button', { name: 'Delete Branded' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Branded?' });
    await dialog.getByRole('button', { name: 'Delete layout' }).click();
    await orShot('layout-in-use', dialog.getByRole('alert').waitFor());
    await expect(dialog.getByRole('alert').textContent()).resolves.toContain(
      'The layout is used by the published version of the template "Welcome"',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await panel.shot('layouts');
  }, 60_000);

  it("previews an MJML template in a frame of the gateway's own: its compiled tables, their inline styles applied", async () => {
    const mjml = await api('POST', `${p()}/templates`, {
      name: 'Receipt',
      subject: 'Your receipt, {{user.name}}',
      format: 'mjml',
      html: [
        '<mjml>',
        // MJML's default font (Ubuntu) is left as it is: Postbus links no web font the template does
        // not declare, so the frame has nothing to refuse.
        '  <mj-head>',
        '    <mj-style>.total div { font-weight: 700 !important; }</mj-style>',
        '  </mj-head>',
        '  <mj-body>',
        '    <mj-section><mj-column>',
        '      <mj-text color="#bb0000" css-class="total">Total for {{user.name}}: {{data.code}}</mj-text>',
        '    </mj-column></mj-section>',
        '  </mj-body>',
        '</mjml>',
      ].join('\n'),
    });
    expect(mjml.status).toBe(201);
    await page.goto(`${base}/projects/${client.projectId}/templates/${mjml.body.id as string}`);
    await orShot(
      'mjml-preview',
      waitFor(async () => (await page.getByLabel('Rendered subject').textContent()) === 'Your receipt, Ada Lovelace', {
        what: 'the MJML preview',
      }),
    );
    // The frame the panel's form filled, read through Chromium's frames.
    const framed = async () => (await page.frame({ name: 'template-preview-frame' })?.content()) ?? '';
    await orShot(
      'mjml-frame',
      waitFor(async () => (await framed()).includes('Total for Ada Lovelace'), { what: 'the framed MJML' }),
    );
    const html = await framed();
    expect(html).toContain('<table');
    expect(html).not.toContain('<mj-');
    const total = page.frameLocator('iframe[title="Rendered email"]').getByText('Total for Ada Lovelace: 4711');
    // The inline style and the <style> element both apply: a srcdoc frame under the panel's policy refused them.
    // Run in the page (the browser's window, typed as the e2e files type it): the style as applied.
    const style = await total.evaluate((el) => {
      const { color, fontWeight } = (
        globalThis as unknown as { getComputedStyle(e: unknown): { color: string; fontWeight: string } }
      ).getComputedStyle(el);
      return { color, fontWeight };
    });
    expect(style).toEqual({ color: 'rgb(187, 0, 0)', fontWeight: '700' });
    await panel.shot('template-editor-mjml', false);
  }, 60_000);

  it('loaded every screen without a Content-Security-Policy violation', () => {
    expect(panel.cspViolations).toEqual([]);
  });
});
