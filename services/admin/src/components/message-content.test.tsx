import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { createQueryClient } from '../app';
import { MessageContentView } from './message-content';
import { MessageItem } from './timeline';
import { gatewayAnswer } from '../test-answer';
import { PROJECT, testMessage } from '../test-fixtures';

const HTML = `<p>Hello Ada</p><script>document.title='pwned'</script>`;

/** The gateway's content read: one answer for every call, and the paths asked. */
function fakeGateway(status: number, body: unknown) {
  const urls: string[] = [];
  globalThis.fetch = jest.fn((url: string) => {
    urls.push(url);
    return gatewayAnswer(status, body);
  }) as unknown as typeof fetch;
  return urls;
}

const view = (messageId = 'msg_1') =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MessageContentView projectId={PROJECT} messageId={messageId} />
    </QueryClientProvider>,
  );

describe("a message's email as sent", () => {
  it("frames the HTML from the gateway's page of it, with an empty sandbox (no scripts, no same origin), and the text part on demand", async () => {
    const urls = fakeGateway(200, { subject: 'Hello Ada', html: HTML, text: 'Hello Ada, in plain text', truncated: false });
    view();
    const frame = await screen.findByTitle('Email as sent: Hello Ada');
    expect(frame.tagName).toBe('IFRAME');
    expect(frame.getAttribute('sandbox')).toBe('');
    expect(frame.getAttribute('src')).toBe(`/admin/frames/email/${PROJECT}/msg_1`);
    expect(frame.getAttribute('srcdoc')).toBeNull();
    expect(urls).toEqual([`/v1/projects/${PROJECT}/messages/msg_1/content`]);
    expect(screen.queryByText(/Cut at 256 KB/)).not.toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Show text part' }));
    expect(screen.getByLabelText('Text of the email Hello Ada')).toHaveTextContent('Hello Ada, in plain text');
    expect(screen.queryByTitle('Email as sent: Hello Ada')).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Show HTML' }));
    expect(screen.getByTitle('Email as sent: Hello Ada')).toBeInTheDocument();
  });

  it('says when the HTML was cut at the cap', async () => {
    fakeGateway(200, { subject: 'Big', html: '<p>…</p>', text: '', truncated: true });
    view();
    expect(await screen.findByText(/Cut at 256 KB/)).toBeInTheDocument();
  });

  it("shows the API's reason when the message has no rendered email", async () => {
    fakeGateway(404, { type: '/problems/not-found', title: 'Not found', status: 404, detail: 'It was suppressed before it was rendered.' });
    view();
    expect(await screen.findByText('It was suppressed before it was rendered.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows an error with a retry when the read fails', async () => {
    fakeGateway(403, { type: '/problems/forbidden', title: 'Forbidden', status: 403, detail: 'A full key is needed.' });
    view();
    expect(await screen.findByRole('alert')).toHaveTextContent('A full key is needed.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});

describe('the email in a message of the profile', () => {
  const message = testMessage({
    id: 'msg_2',
    email: 'ada@example.com',
    status: 'sent',
    subject: 'Hello Ada',
    created_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:00:01.000Z',
    timeline: [{ sequence: 1, event: 'queued', at: '2026-11-23T10:00:00.000Z' }],
  });

  it('is fetched only when asked for, and not offered before the message was rendered', async () => {
    const urls = fakeGateway(200, { subject: 'Hello Ada', html: HTML, text: 'Hello', truncated: false });
    const { rerender } = render(
      <QueryClientProvider client={createQueryClient()}>
        <MessageItem message={message} />
      </QueryClientProvider>,
    );
    expect(urls).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Show email' }));
    expect((await screen.findByTitle('Email as sent: Hello Ada')).getAttribute('sandbox')).toBe('');
    expect(urls).toEqual([`/v1/projects/${PROJECT}/messages/msg_2/content`]);

    rerender(
      <QueryClientProvider client={createQueryClient()}>
        <MessageItem message={{ ...message, id: 'msg_3', status: 'queued', subject: null }} />
      </QueryClientProvider>,
    );
    expect(screen.queryByRole('button', { name: 'Show email' })).not.toBeInTheDocument();
  });
});
