import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { EditorView } from '@uiw/react-codemirror';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createQueryClient } from '../app';
import type { TemplateError, TemplateValidation, ValidateTemplateRequest } from '../api/types';
import { PROJECT } from '../test-fixtures';
import { gatewayAnswer } from '../test-answer';
import { TemplateEditorScreen } from './template-editor';

const TEMPLATES = `/v1/projects/${PROJECT}/templates`;

/**
 * The template check as the gateway answers it, for what these tests type: an expression opened with
 * `{{` and not closed with `}}` on its line is an error there; the `user.*` and `data.*` paths read, sorted.
 */
function validate({ subject, html, text }: ValidateTemplateRequest): TemplateValidation {
  const errors: TemplateError[] = [];
  const parts = { subject, html, text };
  for (const field of ['subject', 'html', 'text'] as const) {
    (parts[field] ?? '').split('\n').forEach((line, i) => {
      const open = line.search(/\{\{(?![^}]*\}\})/);
      if (open >= 0)
        errors.push({
          field,
          line: field === 'subject' ? null : i + 1,
          column: field === 'subject' ? null : open + 1,
          message: 'an expression opened with {{ is not closed with }}',
        });
    });
  }
  const content = [subject, html, text].join('\n');
  const variables = [...new Set([...content.matchAll(/\{\{\s*((?:user|data)\.[\w.]+)/g)].map((m) => m[1]!))].sort();
  return { valid: errors.length === 0, errors, rendered: null, variables };
}

/** The gateway, as far as the editor of a new template asks it: the live preview and the template check. */
function fakeGateway() {
  const checked: ValidateTemplateRequest[] = [];
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const { pathname } = new URL(url, 'http://panel.test');
    if (pathname === `/v1/projects/${PROJECT}/template-preview` && init?.method === 'POST')
      return gatewayAnswer(200, { subject: 'Welcome, Ada Lovelace', html: '<p>Hi</p>', text: 'Hi' });
    if (pathname === `${TEMPLATES}/validate` && init?.method === 'POST') {
      checked.push(body as ValidateTemplateRequest);
      return gatewayAnswer(200, validate(body as ValidateTemplateRequest));
    }
    return gatewayAnswer(404, { title: 'Not found', status: 404 });
  }) as unknown as typeof fetch;
  return checked;
}

function renderEditor() {
  const { container } = render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[`/projects/${PROJECT}/templates/new`]}>
        <Routes>
          <Route path="/projects/:projectId/templates/:templateId" element={<TemplateEditorScreen />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  // CodeMirror lives in a shadow root (see template-editor.tsx), which screen queries do not enter.
  const host = [...container.querySelectorAll('div')].find((el) => el.shadowRoot)!;
  const root = host.shadowRoot!;
  const content = () => root.querySelector<HTMLElement>('.cm-content')!;
  return {
    /** The HTML field: its label, the editor and what is shown under it. */
    htmlField: host.parentElement!,
    content,
    /** What CodeMirror's content says its description is: the text of the element it names (in the same root). */
    htmlDescription: () => {
      const ids = content().getAttribute('aria-describedby');
      return ids ? ids.split(' ').map((id) => root.getElementById(id)?.textContent ?? '') : [];
    },
    /** Replaces the HTML as typing does: through the editor, whose change the screen hears. */
    typeHtml: (html: string) => {
      const view = EditorView.findFromDOM(content())!;
      act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: html } }));
    },
  };
}

describe('the template editor', () => {
  // jsdom lays nothing out and leaves out a range's boxes, which CodeMirror measures the selection with: none.
  beforeAll(() => {
    const none = { x: 0, y: 0, width: 0, height: 0, top: 0, right: 0, bottom: 0, left: 0, toJSON: () => ({}) };
    Object.assign(Range.prototype, { getClientRects: () => [], getBoundingClientRect: () => none });
  });

  it('shows the errors of the check inline under the HTML while typing, and clears them once the HTML is fixed', async () => {
    const checked = fakeGateway();
    const editor = renderEditor();
    // The starter template is checked at once, with the preview's sample user and data.
    await screen.findByText('data.code, user.name');
    expect(checked[0]).toEqual({
      subject: 'Welcome, {{user.name}}',
      html: expect.stringContaining('{{data.code}}') as unknown,
      user: expect.objectContaining({ name: 'Ada Lovelace' }) as unknown,
      data: { code: '4711' },
    });
    expect(screen.getByText(/^Reads:/)).toHaveTextContent('Reads: data.code, user.name');

    editor.typeHtml('<h1>Hi</h1>\n<p>{{user.name}</p>\n');
    const error = await within(editor.htmlField).findByText(
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
    await waitFor(() => expect(within(editor.htmlField).queryByText(/^Line 2/)).toBeNull(), { timeout: 3000 });
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
});
