import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../app';
import type { DraftPreviewRequest } from '../api/types';
import { gatewayAnswer } from '../test-answer';
import { PROJECT } from '../test-fixtures';
import { PREVIEW_FRAME_NAME, TemplatePreview } from './template-preview';

const REQUEST: DraftPreviewRequest = {
  subject: 'Hi {{user.name}}',
  html: '<mjml><mj-body><mj-text>Hi {{user.name}}</mj-text></mj-body></mjml>',
  format: 'mjml',
  user: { name: 'Ada' },
  data: {},
};

/** The forms jsdom was asked to submit (it submits none): each one's method, action, target and fields. */
function formPosts() {
  const posts: Array<{ method: string; action: string; target: string; fields: Record<string, string> }> = [];
  jest.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
    const fields = Object.fromEntries([...new FormData(this).entries()].map(([name, value]) => [name, value as string]));
    posts.push({ method: this.method, action: new URL(this.action).pathname, target: this.target, fields });
  });
  return posts;
}

/** The gateway's preview: one answer for every call. */
function fakeGateway(status: number, body: unknown) {
  const asked: unknown[] = [];
  globalThis.fetch = jest.fn((_url: string, init?: RequestInit) => {
    asked.push(JSON.parse(init?.body as string));
    return gatewayAnswer(status, body);
  }) as unknown as typeof fetch;
  return asked;
}

const preview = (request: DraftPreviewRequest | undefined) => (
  <TemplatePreview
    projectId={PROJECT}
    request={request}
    format="mjml"
    languages={[]}
    language={null}
    onLanguage={() => undefined}
    incomplete={false}
    samples={{ userJson: '{"name": "Ada"}', dataJson: '{}' }}
    onSamples={() => undefined}
    variables={undefined}
  />
);

const view = (request: DraftPreviewRequest | undefined) => {
  const client = createQueryClient();
  const shown = render(<QueryClientProvider client={client}>{preview(request)}</QueryClientProvider>);
  return {
    rerender: (next: DraftPreviewRequest | undefined) =>
      shown.rerender(<QueryClientProvider client={client}>{preview(next)}</QueryClientProvider>),
  };
};

const frame = () => screen.getByTitle('Rendered email');

afterEach(() => jest.restoreAllMocks());

describe("the template editor's preview", () => {
  it('frames the HTML from the gateway\'s page of it: a form posted into a sandbox="" frame by name, its one field the request as JSON', async () => {
    const posts = formPosts();
    const asked = fakeGateway(200, { subject: 'Hi Ada', html: '<table></table>', text: 'Hi Ada' });
    view(REQUEST);
    await screen.findByText('Hi Ada');
    expect(asked).toEqual([REQUEST]);
    expect(frame().tagName).toBe('IFRAME');
    expect(frame().getAttribute('name')).toBe(PREVIEW_FRAME_NAME);
    expect(frame().getAttribute('sandbox')).toBe('');
    // Inline, the HTML would take the panel's policy, which refuses its inline styles.
    expect(frame().getAttribute('srcdoc')).toBeNull();
    expect(frame()).toBeVisible();
    expect(posts).toEqual([
      {
        method: 'post',
        action: `/admin/frames/template-preview/${PROJECT}`,
        target: PREVIEW_FRAME_NAME,
        fields: { request: JSON.stringify(REQUEST) },
      },
    ]);
  });

  it('posts each new request into a new frame (no entry in the history), and keeps the last one framed while there is none to post', async () => {
    const posts = formPosts();
    fakeGateway(200, { subject: 'Hi Ada', html: '<p>Hi</p>', text: 'Hi' });
    const shown = view(REQUEST);
    await screen.findByText('Hi Ada');
    const first = frame();
    const changed = { ...REQUEST, subject: 'Hello {{user.name}}' };
    shown.rerender(changed);
    await waitFor(() => expect(posts).toHaveLength(2));
    expect(posts[1]!.fields).toEqual({ request: JSON.stringify(changed) });
    expect(frame()).not.toBe(first);
    const second = frame();
    // Samples that are not JSON: nothing to preview; what was framed stays.
    shown.rerender(undefined);
    await screen.findByText('Hi Ada');
    expect(frame()).toBe(second);
    expect(posts).toHaveLength(2);
  });

  it('hides the frame, without dropping it, while the text part is shown', async () => {
    const posts = formPosts();
    fakeGateway(200, { subject: 'Hi Ada', html: '<p>Hi</p>', text: 'Hi Ada, in plain text' });
    view(REQUEST);
    await screen.findByText('Hi Ada');
    const framed = frame();
    fireEvent.click(screen.getByRole('button', { name: 'Show text part' }));
    expect(screen.getByText('Hi Ada, in plain text')).toBeInTheDocument();
    expect(framed).not.toBeVisible();
    fireEvent.click(screen.getByRole('button', { name: 'Show HTML' }));
    expect(frame()).toBe(framed);
    expect(framed).toBeVisible();
    expect(posts).toHaveLength(1);
  });

  it('when the API cannot render the draft, then its problem is shown and the frame (which says the same) is hidden', async () => {
    formPosts();
    fakeGateway(400, { title: 'The request is invalid', status: 400, detail: 'The template has syntax errors.' });
    view(REQUEST);
    await screen.findByText(/The template has syntax errors/);
    expect(frame()).not.toBeVisible();
  });
});
