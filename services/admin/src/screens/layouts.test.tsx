import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { EditorView } from '@uiw/react-codemirror';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createQueryClient } from '../app';
import type { Layout, SaveLayoutRequest } from '../api/types';
import { gatewayAnswer } from '../test-answer';
import { PROJECT } from '../test-fixtures';
import { LayoutEditorScreen } from './layout-editor';
import { LayoutsScreen } from './layouts';

const LAYOUTS = `/v1/projects/${PROJECT}/layouts`;
const BRANDED = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const PLAIN = 'cccccccccccccccccccccccc';

const layout = (id: string, name: string, version: number, published: number, html: string): Layout => ({
  id,
  project_id: PROJECT,
  name,
  version,
  latest_version: version,
  published_version: published,
  html,
  text: null,
  saved_by: { key_id: 'key_admin', via: 'session' },
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: `2026-11-0${version}T10:00:00.000Z`,
});

/**
 * The gateway's layouts: Branded (a draft v2 ahead of v1), which a published template uses (its
 * delete answered 409 naming it), and Plain; saves and publishes as the API does them. Every call kept.
 */
function fakeGateway() {
  const calls: Array<{ method: string; path: string; body?: unknown }> = [];
  let layouts = [layout(BRANDED, 'Branded', 2, 1, '<main>{{{content}}}</main>'), layout(PLAIN, 'Plain', 1, 1, '{{{content}}}')];
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const { pathname } = new URL(url, 'http://panel.test');
    calls.push({ method, path: pathname, ...(body !== undefined ? { body } : {}) });
    const [, id, rest] = /^\/v1\/projects\/\w+\/layouts(?:\/(\w+))?(\/.*)?$/.exec(pathname) ?? [];
    const found = layouts.find((l) => l.id === id);
    if (pathname === LAYOUTS && method === 'GET') return gatewayAnswer(200, { data: layouts });
    if (pathname === LAYOUTS && method === 'POST')
      return gatewayAnswer(201, { ...layout('dddddddddddddddddddddddd', 'New', 1, 1, ''), ...(body as object) });
    if (found && !rest && method === 'DELETE') {
      if (id === BRANDED)
        return gatewayAnswer(409, {
          title: 'Conflict',
          status: 409,
          detail: 'The layout is used by the published version of templates Welcome, Receipt.',
        });
      layouts = layouts.filter((l) => l.id !== id);
      return gatewayAnswer(204);
    }
    if (found && !rest && method === 'GET') return gatewayAnswer(200, found);
    if (found && !rest && method === 'PUT') {
      const { draft, ...saved } = body as SaveLayoutRequest;
      const next = { ...found, ...saved, version: found.latest_version + 1, latest_version: found.latest_version + 1 };
      if (!draft) next.published_version = next.version;
      layouts = layouts.map((l) => (l.id === id ? next : l));
      return gatewayAnswer(200, next);
    }
    if (found && rest === '/versions')
      return gatewayAnswer(200, {
        data: Array.from({ length: found.latest_version }, (_, i) => found.latest_version - i).map((version) => ({
          version,
          created_at: '2026-11-01T10:00:00.000Z',
          saved_by: found.saved_by,
          published: version === found.published_version,
        })),
      });
    const publish = /^\/versions\/(\d+)\/publish$/.exec(rest ?? '');
    if (found && publish && method === 'POST') {
      const next = { ...found, published_version: Number(publish[1]) };
      layouts = layouts.map((l) => (l.id === id ? next : l));
      return gatewayAnswer(200, next);
    }
    return gatewayAnswer(404, { title: 'Not found', status: 404 });
  }) as unknown as typeof fetch;
  return { calls, writes: () => calls.filter((c) => c.method !== 'GET') };
}

function renderAt(path: string) {
  const { container } = render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/projects/:projectId/layouts" element={<LayoutsScreen />} />
          <Route path="/projects/:projectId/layouts/:layoutId" element={<LayoutEditorScreen />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  // CodeMirror lives in a shadow root (see html-editor.tsx), which screen queries do not enter.
  const host = () => [...container.querySelectorAll('div')].find((el) => el.shadowRoot)!;
  return {
    htmlField: () => host().parentElement!,
    typeHtml: (html: string) => {
      const view = EditorView.findFromDOM(host().shadowRoot!.querySelector<HTMLElement>('.cm-content')!)!;
      act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: html } }));
    },
  };
}

describe('the layouts', () => {
  beforeAll(() => {
    const none = { x: 0, y: 0, width: 0, height: 0, top: 0, right: 0, bottom: 0, left: 0, toJSON: () => ({}) };
    Object.assign(Range.prototype, { getClientRects: () => [], getBoundingClientRect: () => none });
  });

  it('lists each layout with its published version and a draft ahead of it', async () => {
    fakeGateway();
    renderAt(`/projects/${PROJECT}/layouts`);
    const list = await screen.findByRole('list', { name: 'Layouts' });
    const items = within(list).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent(/^BrandedDraft v2 · published v1saved /);
    expect(items[1]).toHaveTextContent(/^PlainPublished v1saved /);
    expect(within(items[0]!).getByRole('link', { name: 'Branded' })).toHaveAttribute('href', `/projects/${PROJECT}/layouts/${BRANDED}`);
  });

  it('deletes a layout after a confirmation, and shows why when templates use it (409)', async () => {
    const gateway = fakeGateway();
    renderAt(`/projects/${PROJECT}/layouts`);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete Branded' }));
    let dialog = screen.getByRole('dialog', { name: 'Delete Branded?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete layout' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'The layout is used by the published version of templates Welcome, Receipt.',
    );
    expect(screen.getByRole('link', { name: 'Branded' })).toBeInTheDocument();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    fireEvent.click(screen.getByRole('button', { name: 'Delete Plain' }));
    dialog = screen.getByRole('dialog', { name: 'Delete Plain?' });
    // The earlier answer went with its dialog.
    expect(within(dialog).queryByRole('alert')).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete layout' }));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Plain' })).toBeNull());
    expect(gateway.writes().map((c) => `${c.method} ${c.path}`)).toEqual([`DELETE ${LAYOUTS}/${BRANDED}`, `DELETE ${LAYOUTS}/${PLAIN}`]);
  });

  it('a new layout says, before it is saved, that its HTML needs {{{content}}} exactly once', async () => {
    const gateway = fakeGateway();
    const editor = renderAt(`/projects/${PROJECT}/layouts/new`);
    await screen.findByRole('heading', { name: 'New layout' });
    expect(within(editor.htmlField()).queryByText(/exactly once/)).toBeNull();
    editor.typeHtml('<main></main>');
    expect(
      within(editor.htmlField()).getByText(/\{\{\{content\}\}\} must be in it exactly once .* it is there 0 times\./),
    ).toBeInTheDocument();
    editor.typeHtml('<main>{{{content}}}</main>');
    expect(within(editor.htmlField()).queryByText(/exactly once/)).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Create layout' }));
    await waitFor(() => expect(gateway.writes()).toHaveLength(1));
    expect(gateway.writes()[0]).toEqual({
      method: 'POST',
      path: LAYOUTS,
      body: { name: 'Branded', html: '<main>{{{content}}}</main>', text: null },
    });
  });

  it('publishes the draft shown, then saves an edit as a draft, with its versions listed', async () => {
    const gateway = fakeGateway();
    renderAt(`/projects/${PROJECT}/layouts/${BRANDED}`);
    await screen.findByText('Draft v2 · published v1');
    expect(within(await screen.findByRole('listitem', { name: 'Version 1' })).getByText('published')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Publish v2' }));
    await screen.findByText('Published v2');

    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Branded 2027' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save draft' }));
    await screen.findByText('Draft v3 · published v2');
    expect(gateway.writes()).toEqual([
      { method: 'POST', path: `${LAYOUTS}/${BRANDED}/versions/2/publish` },
      {
        method: 'PUT',
        path: `${LAYOUTS}/${BRANDED}`,
        body: { name: 'Branded 2027', html: '<main>{{{content}}}</main>', text: null, draft: true },
      },
    ]);
  });
});
