import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { EditorView } from '@uiw/react-codemirror';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createQueryClient } from '../app';
import type {
  DraftPreviewRequest,
  SaveTemplateRequest,
  Template,
  TemplateError,
  TemplateValidation,
  ValidateTemplateRequest,
} from '../api/types';
import { PROJECT } from '../test-fixtures';
import { gatewayAnswer } from '../test-answer';
import { TemplateEditorScreen } from './template-editor';

const TEMPLATES = `/v1/projects/${PROJECT}/templates`;

/**
 * The template check as the gateway answers it, for what these tests type: an expression opened with
 * `{{` and not closed with `}}` on its line is an error there (a variant's named variants/N/…); the
 * `user.*` and `data.*` paths read, sorted.
 */
function validate({ subject, html, text, variants = [] }: ValidateTemplateRequest): TemplateValidation {
  const errors: TemplateError[] = [];
  const languages = [{ at: '', parts: { subject, html, text } }, ...variants.map((v, i) => ({ at: `variants/${i}/`, parts: v }))];
  for (const { at, parts } of languages)
    for (const field of ['subject', 'html', 'text'] as const) {
      (parts[field] ?? '').split('\n').forEach((line, i) => {
        const open = line.search(/\{\{(?![^}]*\}\})/);
        if (open >= 0)
          errors.push({
            field: `${at}${field}`,
            line: field === 'subject' ? null : i + 1,
            column: field === 'subject' ? null : open + 1,
            message: 'an expression opened with {{ is not closed with }}',
          });
      });
    }
  const content = [subject, html, text, ...variants.flatMap((v) => [v.subject, v.html, v.text])].join('\n');
  const variables = [...new Set([...content.matchAll(/\{\{\s*((?:user|data)\.[\w.]+)/g)].map((m) => m[1]!))].sort();
  return { valid: errors.length === 0, errors, rendered: null, variables };
}

const TEMPLATE_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const STARTER_HTML = '<h1>Hi {{user.name}}</h1>\n<p>Your code is <strong>{{data.code}}</strong>.</p>\n';
const LAYOUT = { id: 'bbbbbbbbbbbbbbbbbbbbbbbb', name: 'Branded' };
const ADMIN_KEY = { id: 'key_admin', name: 'Admin key' };

/** What one saved version of the fake's template holds. */
type SavedVersion = Pick<Template, 'subject' | 'html' | 'text' | 'format' | 'layout_id' | 'variants' | 'saved_by'>;

/**
 * The gateway, as far as the editor asks it: the live preview and the template check; the project's
 * one layout and the client's keys; and a template (TEMPLATE_ID) of `versions`, `published` the one
 * sends use, saved and published as the API does. Every call's method, path and body are kept.
 */
function fakeGateway(versions: SavedVersion[] = [], published = versions.length) {
  const calls: Array<{ method: string; path: string; body?: unknown }> = [];
  const created = (version: number) => `2026-11-0${version}T10:00:00.000Z`;
  const read = (version: number): Template => ({
    id: TEMPLATE_ID,
    project_id: PROJECT,
    name: 'Welcome',
    version,
    latest_version: versions.length,
    published_version: published,
    ...versions[version - 1]!,
    created_at: created(1),
    updated_at: created(version),
  });
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const { pathname, searchParams } = new URL(url, 'http://panel.test');
    calls.push({ method, path: pathname, ...(body !== undefined ? { body } : {}) });
    const template = `${TEMPLATES}/${TEMPLATE_ID}`;
    const publish = new RegExp(`^${template}/versions/(\\d+)/publish$`).exec(pathname);
    if (pathname === `/v1/projects/${PROJECT}/template-preview` && method === 'POST')
      return gatewayAnswer(200, { subject: 'Welcome, Ada Lovelace', html: '<p>Hi</p>', text: 'Hi' });
    if (pathname === `${TEMPLATES}/validate` && method === 'POST') return gatewayAnswer(200, validate(body as ValidateTemplateRequest));
    if (pathname === `/v1/projects/${PROJECT}/layouts`) return gatewayAnswer(200, { data: [LAYOUT] });
    if (pathname === '/v1/keys') return gatewayAnswer(200, { data: [ADMIN_KEY] });
    if (pathname === TEMPLATES && method === 'POST') {
      versions.push({ ...(body as SavedVersion), saved_by: { key_id: ADMIN_KEY.id, via: 'session' } });
      published = versions.length;
      return gatewayAnswer(201, read(1));
    }
    if (pathname === template && method === 'GET') return gatewayAnswer(200, read(Number(searchParams.get('version')) || versions.length));
    if (pathname === template && method === 'PUT') {
      const { draft, ...saved } = body as SaveTemplateRequest;
      versions.push({ ...(saved as Omit<SavedVersion, 'saved_by'>), saved_by: { key_id: ADMIN_KEY.id, via: 'session' } });
      if (!draft) published = versions.length;
      return gatewayAnswer(200, read(versions.length));
    }
    if (pathname === `${template}/versions`)
      return gatewayAnswer(200, {
        data: versions
          .map((v, i) => ({ version: i + 1, created_at: created(i + 1), saved_by: v.saved_by, published: i + 1 === published }))
          .reverse(),
      });
    if (publish && method === 'POST') {
      published = Number(publish[1]);
      return gatewayAnswer(200, read(published));
    }
    return gatewayAnswer(404, { title: 'Not found', status: 404 });
  }) as unknown as typeof fetch;
  return {
    calls,
    /** The bodies of the checks asked for, in order. */
    checked: () => calls.filter((c) => c.path === `${TEMPLATES}/validate`).map((c) => c.body as ValidateTemplateRequest),
    /** The bodies of the previews asked for, in order. */
    previewed: () => calls.filter((c) => c.path === `/v1/projects/${PROJECT}/template-preview`).map((c) => c.body as DraftPreviewRequest),
    /** The calls that changed something. */
    writes: () => calls.filter((c) => c.method !== 'GET' && !c.path.endsWith('/validate') && !c.path.endsWith('/template-preview')),
  };
}

/** Version 1 published, then a draft version 2 ahead of it (and so on): the default parts of each. */
const savedVersion = (subject: string, savedBy: Template['saved_by'] = { key_id: ADMIN_KEY.id, via: 'session' }): SavedVersion => ({
  subject,
  html: '<p>Hi {{user.name}}</p>\n<p>Your code is {{data.code}}.</p>\n',
  text: null,
  format: 'handlebars',
  layout_id: null,
  variants: [{ language: 'de', subject: `${subject} (de)`, html: '<p>Hallo {{user.name}}</p>\n', text: null, layout_id: null }],
  saved_by: savedBy,
});

function renderEditor(templateId = 'new') {
  const { container } = render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[`/projects/${PROJECT}/templates/${templateId}`]}>
        <Routes>
          <Route path="/projects/:projectId/templates/:templateId" element={<TemplateEditorScreen />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  // CodeMirror lives in a shadow root (see template-editor.tsx), which screen queries do not enter. Each
  // language has an editor of its own: found anew at each look.
  const host = () => [...container.querySelectorAll('div')].find((el) => el.shadowRoot)!;
  const root = () => host().shadowRoot!;
  const content = () => root().querySelector<HTMLElement>('.cm-content')!;
  return {
    /** The HTML field: its label, the editor and what is shown under it. */
    htmlField: () => host().parentElement!,
    content,
    /** What CodeMirror's content says its description is: the text of the element it names (in the same root). */
    htmlDescription: () => {
      const ids = content().getAttribute('aria-describedby');
      return ids ? ids.split(' ').map((id) => root().getElementById(id)?.textContent ?? '') : [];
    },
    /** Replaces the HTML as typing does: through the editor, whose change the screen hears. */
    typeHtml: (html: string) => {
      const view = EditorView.findFromDOM(content())!;
      act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: html } }));
    },
  };
}

/** The requests the preview's form posted into its frame, in order. */
const framed: DraftPreviewRequest[] = [];

describe('the template editor', () => {
  // jsdom lays nothing out and leaves out a range's boxes, which CodeMirror measures the selection with: none.
  beforeAll(() => {
    const none = { x: 0, y: 0, width: 0, height: 0, top: 0, right: 0, bottom: 0, left: 0, toJSON: () => ({}) };
    Object.assign(Range.prototype, { getClientRects: () => [], getBoundingClientRect: () => none });
    // The preview's form posts the request into its frame: jsdom submits no form, the request is kept instead.
    jest.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
      framed.push(JSON.parse(new FormData(this).get('request') as string) as DraftPreviewRequest);
    });
  });

  it('shows the errors of the check inline under the HTML while typing, and clears them once the HTML is fixed', async () => {
    const checked = fakeGateway().checked;
    const editor = renderEditor();
    // The starter template is checked at once, with the preview's sample user and data.
    await screen.findByText('data.code, user.name');
    expect(checked()[0]).toEqual({
      subject: 'Welcome, {{user.name}}',
      html: expect.stringContaining('{{data.code}}') as unknown,
      format: 'handlebars',
      layout_id: null,
      variants: [],
      user: expect.objectContaining({ name: 'Ada Lovelace' }) as unknown,
      data: { code: '4711' },
    });
    expect(screen.getByText(/^Reads:/)).toHaveTextContent('Reads: data.code, user.name');

    editor.typeHtml('<h1>Hi</h1>\n<p>{{user.name}</p>\n');
    const error = await within(editor.htmlField()).findByText(
      'Line 2, column 4: an expression opened with {{ is not closed with }}',
      {},
      { timeout: 3000 },
    );
    expect(error.closest('div')).toHaveClass('text-red-700');
    expect(editor.content()).toHaveAttribute('aria-invalid', 'true');
    expect(editor.htmlDescription()).toEqual(['Line 2, column 4: an expression opened with {{ is not closed with }}']);
    expect(screen.getByRole('status')).toHaveTextContent('1 error in the template');
    // Saving stays possible: the API answers a save it cannot render with its own 422.
    expect(screen.getByRole('button', { name: 'Create template' })).toBeEnabled();
    expect(screen.getByText(/^Reads:/)).toHaveTextContent('Reads: user.name');

    editor.typeHtml('<h1>Hi</h1>\n<p>{{user.name}}, your code is {{data.code}}</p>\n');
    await waitFor(() => expect(within(editor.htmlField()).queryByText(/^Line 2/)).toBeNull(), { timeout: 3000 });
    expect(editor.content()).not.toHaveAttribute('aria-invalid');
    expect(editor.htmlDescription()).toEqual([]);
    expect(screen.getByRole('status')).toHaveTextContent('');
    expect(screen.getByText(/^Reads:/)).toHaveTextContent('Reads: data.code, user.name');
  });

  it('shows an error without a place as the message alone, under the subject, which names it as its description', async () => {
    fakeGateway();
    renderEditor();
    await screen.findByText('data.code, user.name');
    const subject = screen.getByLabelText('Subject');
    expect(subject).not.toHaveAttribute('aria-invalid');

    fireEvent.change(subject, { target: { value: 'Welcome, {{user.name' } });
    await waitFor(() => expect(subject).toHaveAttribute('aria-invalid', 'true'), { timeout: 3000 });
    expect(subject).toHaveAccessibleDescription('an expression opened with {{ is not closed with }}');
    expect(screen.getByRole('status')).toHaveTextContent('1 error in the template');

    fireEvent.change(subject, { target: { value: 'Welcome, {{user.name}}' } });
    await waitFor(() => expect(subject).not.toHaveAttribute('aria-invalid'), { timeout: 3000 });
    expect(subject).not.toHaveAccessibleDescription();
  });

  it('adds a language by its BCP 47 tag (refusing what is not one), edits it in its own tab, and previews the tab being edited', async () => {
    const gateway = fakeGateway();
    renderEditor();
    await screen.findByText('data.code, user.name');
    fireEvent.click(screen.getByRole('button', { name: '+ Language' }));
    const tag = screen.getByLabelText('Language tag');
    fireEvent.change(tag, { target: { value: 'pt_BR' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add language' }));
    expect(tag).toHaveAccessibleDescription(expect.stringContaining('pt_BR is not a BCP 47 language tag'));
    expect(tag).toHaveAttribute('aria-invalid', 'true');

    fireEvent.change(tag, { target: { value: 'de' } });
    fireEvent.keyDown(tag, { key: 'Enter' });
    const tabs = screen.getByRole('tablist', { name: 'Languages' });
    expect(
      within(tabs)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Default', 'de']);
    expect(within(tabs).getByRole('tab', { name: 'de' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tabpanel', { name: 'de' })).toBeInTheDocument();
    // A new language starts as a copy of the default, to translate.
    const subject = screen.getByLabelText('Subject');
    expect(subject).toHaveValue('Welcome, {{user.name}}');
    fireEvent.change(subject, { target: { value: 'Willkommen, {{user.name}}' } });
    await waitFor(() => expect(gateway.previewed().at(-1)?.language).toBe('de'), { timeout: 3000 });
    // The frame shows what the API was asked to render: the same request, posted to the gateway's page of it.
    await waitFor(() => expect(framed.at(-1)).toEqual(gateway.previewed().at(-1)));
    expect(gateway.previewed().at(-1)?.variants).toEqual([
      // No layout: a variant has none unless it names one.
      { language: 'de', subject: 'Willkommen, {{user.name}}', html: STARTER_HTML, text: null },
    ]);
    expect(gateway.previewed().at(-1)?.subject).toBe('Welcome, {{user.name}}');
    expect(screen.getByLabelText('Preview language')).toHaveValue('de');

    // The preview's own choice: the default, while the tab stays.
    fireEvent.change(screen.getByLabelText('Preview language'), { target: { value: '' } });
    await waitFor(() => expect(gateway.previewed().at(-1)).not.toHaveProperty('language'), { timeout: 3000 });
    expect(within(tabs).getByRole('tab', { name: 'de' })).toHaveAttribute('aria-selected', 'true');

    fireEvent.click(within(tabs).getByRole('tab', { name: 'Default' }));
    expect(screen.getByLabelText('Subject')).toHaveValue('Welcome, {{user.name}}');
    fireEvent.click(within(tabs).getByRole('tab', { name: 'de' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove de' }));
    expect(
      within(tabs)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Default']);
    expect(within(tabs).getByRole('tab', { name: 'Default' })).toHaveAttribute('aria-selected', 'true');
  });

  it("shows a variant's errors under its own tab's fields (variants/N/html), and counts them on its tab", async () => {
    fakeGateway();
    const editor = renderEditor();
    await screen.findByText('data.code, user.name');
    fireEvent.click(screen.getByRole('button', { name: '+ Language' }));
    fireEvent.change(screen.getByLabelText('Language tag'), { target: { value: 'de' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add language' }));
    editor.typeHtml('<p>Hallo</p>\n<p>{{user.name}</p>\n');
    const tabs = screen.getByRole('tablist', { name: 'Languages' });
    await within(tabs).findByRole('tab', { name: 'de, 1 error' }, { timeout: 3000 });
    expect(
      within(editor.htmlField()).getByText('Line 2, column 4: an expression opened with {{ is not closed with }}'),
    ).toBeInTheDocument();
    expect(editor.content()).toHaveAttribute('aria-invalid', 'true');

    fireEvent.click(within(tabs).getByRole('tab', { name: 'Default' }));
    expect(within(editor.htmlField()).queryByText(/^Line 2/)).toBeNull();
    expect(editor.content()).not.toHaveAttribute('aria-invalid');
    expect(screen.getByRole('status')).toHaveTextContent('1 error in the template');
  });

  it('names the layout chosen; a template turned MJML starts from MJML and takes no layout; it is created as the editor shows it', async () => {
    const gateway = fakeGateway();
    renderEditor();
    await screen.findByText('data.code, user.name');
    const layout = screen.getByLabelText('Layout');
    expect(layout).toHaveAccessibleDescription('The HTML around the body, its {{{content}}} replaced by it.');
    await within(layout).findByRole('option', { name: 'Branded' });
    fireEvent.change(layout, { target: { value: LAYOUT.id } });
    await waitFor(() => expect(gateway.checked().at(-1)).toMatchObject({ format: 'handlebars', layout_id: LAYOUT.id }), { timeout: 3000 });

    fireEvent.change(screen.getByLabelText('Format'), { target: { value: 'mjml' } });
    expect(layout).toBeDisabled();
    expect(layout).toHaveValue('');
    expect(layout).toHaveAccessibleDescription('An MJML template takes no layout: its mj-body is the whole email.');
    await waitFor(() => expect(gateway.checked().at(-1)).toMatchObject({ format: 'mjml', layout_id: null }), { timeout: 3000 });
    expect(gateway.checked().at(-1)?.html).toMatch(/^<mjml>/);
    expect(screen.getByText(/An MJML document/)).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Create template' }));
    await waitFor(() => expect(gateway.writes()).toHaveLength(1));
    expect(gateway.writes()[0]).toEqual({
      method: 'POST',
      path: TEMPLATES,
      body: expect.objectContaining({ name: 'Welcome', format: 'mjml', layout_id: null, variants: [], text: null }) as unknown,
    });
  });

  it('says which version is published and that a draft is ahead, and lists who saved each version and when', async () => {
    fakeGateway(
      [savedVersion('Welcome', { key_id: 'key_gone', via: 'key' }), savedVersion('Welcome!'), savedVersion('Welcome, friend')],
      2,
    );
    renderEditor(TEMPLATE_ID);
    await screen.findByText('Draft v3 · published v2');
    expect(await screen.findByText(/by key “Admin key” via panel/)).toHaveTextContent('version 3 of 3');
    fireEvent.click(screen.getByRole('tab', { name: 'Versions' }));
    const versions = await screen.findByRole('list', { name: 'Versions' });
    const items = within(versions).getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('aria-label'))).toEqual(['Version 3', 'Version 2', 'Version 1']);
    expect(items[0]).toHaveTextContent(/^v3draftin the editorkey “Admin key” via panel · /);
    expect(items[1]).toHaveTextContent(/^v2publishedkey “Admin key” via panel · /);
    // A key the panel does not know (revoked and gone, or another client's view) shows as its id.
    expect(items[2]).toHaveTextContent(/^v1key_gone · /);
    expect(within(items[2]!).getByRole('button', { name: 'Roll back to version 1' })).toBeInTheDocument();
    expect(within(items[0]!).queryByRole('button', { name: /^Roll back/ })).toBeNull();
  });

  it('compares two versions side by side, in the language of the tab being edited; a third pick lets go of the first', async () => {
    fakeGateway([savedVersion('Welcome'), savedVersion('Welcome!'), savedVersion('Welcome, friend')], 2);
    renderEditor(TEMPLATE_ID);
    await screen.findByText('Draft v3 · published v2');
    fireEvent.click(screen.getByRole('tab', { name: 'Versions' }));
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Compare version 3' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Compare version 1' }));
    const subject = await screen.findByRole('region', { name: 'Subject of version 1 and version 3' });
    // Line numbers and texts, the older version's then the newer's; a changed line says so to screen readers.
    expect(
      within(subject)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['1', 'removed: Welcome', '1', 'added: Welcome, friend']);
    expect(within(subject).getByRole('cell', { name: 'removed: Welcome' })).toHaveClass('bg-red-50');
    expect(screen.getByRole('region', { name: 'HTML of version 1 and version 3' })).toHaveTextContent('HTML · unchanged');
    expect(screen.getByText('Comparing v1 and v3 · default')).toBeInTheDocument();

    fireEvent.click(within(screen.getByRole('tablist', { name: 'Languages' })).getByRole('tab', { name: 'de' }));
    await screen.findByText('Comparing v1 and v3 · de');
    expect(screen.getByRole('region', { name: 'Subject of version 1 and version 3' })).toHaveTextContent('removed: Welcome (de)');

    fireEvent.click(screen.getByRole('checkbox', { name: 'Compare version 2' }));
    // Version 3 was picked first.
    expect(screen.getByRole('checkbox', { name: 'Compare version 3' })).not.toBeChecked();
    await screen.findByText('Comparing v1 and v2 · de');
  });

  it('Save draft saves a version that is not published; Publish publishes the version shown, or an edit saved and published at once', async () => {
    const gateway = fakeGateway([savedVersion('Welcome'), savedVersion('Welcome, friend')], 1);
    renderEditor(TEMPLATE_ID);
    await screen.findByText('Draft v2 · published v1');
    expect(screen.getByRole('button', { name: 'Save draft' })).toBeDisabled();
    fireEvent.click(screen.getByRole('button', { name: 'Publish v2' }));
    await screen.findByText('Published v2');
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `${TEMPLATES}/${TEMPLATE_ID}/versions/2/publish` }]);
    expect(screen.getByRole('button', { name: 'Published' })).toBeDisabled();

    fireEvent.change(screen.getByLabelText('Subject'), { target: { value: 'Welcome aboard' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save draft' }));
    await screen.findByText('Draft v3 · published v2');
    expect(gateway.writes()[1]).toEqual({
      method: 'PUT',
      path: `${TEMPLATES}/${TEMPLATE_ID}`,
      body: expect.objectContaining({
        subject: 'Welcome aboard',
        draft: true,
        variants: [{ language: 'de', subject: 'Welcome, friend (de)', html: '<p>Hallo {{user.name}}</p>\n', text: null }],
      }) as unknown,
    });

    fireEvent.change(screen.getByLabelText('Subject'), { target: { value: 'Welcome aboard, {{user.name}}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save and publish' }));
    await screen.findByText('Published v4');
    expect(gateway.writes()[2]?.body).toEqual(expect.objectContaining({ subject: 'Welcome aboard, {{user.name}}' }));
    expect(gateway.writes()[2]?.body).not.toHaveProperty('draft');
  });

  it('rolls back to an older version after a confirmation, from the list of versions', async () => {
    const gateway = fakeGateway([savedVersion('Welcome'), savedVersion('Welcome!'), savedVersion('Welcome, friend')], 2);
    renderEditor(TEMPLATE_ID);
    await screen.findByText('Draft v3 · published v2');
    fireEvent.click(screen.getByRole('tab', { name: 'Versions' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Roll back to version 1' }));
    const dialog = screen.getByRole('dialog', { name: 'Roll back to version 1?' });
    expect(dialog).toHaveTextContent('Sends use version 1 of this template from now on, in place of version 2.');
    expect(gateway.writes()).toEqual([]);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Publish version 1' }));
    await screen.findByText('Draft v3 · published v1');
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `${TEMPLATES}/${TEMPLATE_ID}/versions/1/publish` }]);
    await waitFor(() => expect(within(screen.getByRole('listitem', { name: 'Version 1' })).getByText('published')).toBeInTheDocument());
  });

  it('opened at an older version, says what saving does, and publishes it only after a confirmation (a rollback)', async () => {
    const gateway = fakeGateway([savedVersion('Welcome'), savedVersion('Welcome!'), savedVersion('Welcome, friend')], 2);
    renderEditor(`${TEMPLATE_ID}?version=1`);
    await screen.findByText('You are looking at version 1; sends use version 2. Saving makes it (with your changes) version 4.');
    expect(screen.getByLabelText('Subject')).toHaveValue('Welcome');
    // Saved unchanged, it comes back as the newest draft.
    expect(screen.getByRole('button', { name: 'Save draft' })).toBeEnabled();
    fireEvent.click(screen.getByRole('button', { name: 'Roll back to v1' }));
    const dialog = screen.getByRole('dialog', { name: 'Roll back to version 1?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Publish version 1' }));
    await screen.findByText('Draft v3 · published v1');
    expect(gateway.writes()).toEqual([{ method: 'POST', path: `${TEMPLATES}/${TEMPLATE_ID}/versions/1/publish` }]);
    expect(screen.getByRole('button', { name: 'Published' })).toBeDisabled();
  });

  it('moves between language tabs with the arrow keys, Home and End, as tabs do', async () => {
    fakeGateway([savedVersion('Welcome')], 1);
    renderEditor(TEMPLATE_ID);
    const tabs = await screen.findByRole('tablist', { name: 'Languages' });
    const defaultTab = within(tabs).getByRole('tab', { name: 'Default' });
    expect(defaultTab).toHaveAttribute('tabindex', '0');
    fireEvent.keyDown(defaultTab, { key: 'ArrowRight' });
    const german = within(tabs).getByRole('tab', { name: 'de' });
    expect(german).toHaveAttribute('aria-selected', 'true');
    expect(german).toHaveFocus();
    expect(screen.getByLabelText('Subject')).toHaveValue('Welcome (de)');
    fireEvent.keyDown(german, { key: 'Home' });
    expect(defaultTab).toHaveFocus();
    fireEvent.keyDown(defaultTab, { key: 'ArrowLeft' });
    expect(german).toHaveAttribute('aria-selected', 'true');
  });
});
