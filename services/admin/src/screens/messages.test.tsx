import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createQueryClient } from '../app';
import type { Message } from '../api/types';
import { chartRange, messageLogQuery } from '../lib/message-filters';
import { MessagesScreen } from './messages';
import { gatewayAnswer } from '../test-answer';
import { PROJECT, testMessage } from '../test-fixtures';

// recharts sizes its chart with a ResizeObserver, which jsdom lacks.
class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
Object.assign(globalThis, { ResizeObserver: NoResizeObserver });

const message = (id: string, email: string): Message =>
  testMessage({
    id,
    email,
    status: 'bounced',
    subject: 'Welcome',
    created_at: '2026-11-02T10:00:00.000Z',
    updated_at: '2026-11-02T10:00:01.000Z',
    timeline: [],
  });

/** The gateway, as far as this screen asks it: pages of the log by cursor, and the stats. */
function fakeGateway() {
  const urls: string[] = [];
  globalThis.fetch = jest.fn((url: string) => {
    urls.push(url);
    const { pathname, searchParams } = new URL(url, 'http://panel.test');
    let body: unknown;
    if (pathname.endsWith('/messages/stats')) {
      body = {
        data: [{ day: searchParams.get('from'), counts: { queued: 3, sent: 1, bounced: 2, deferred: 0, failed: 0, suppressed: 0 } }],
      };
    } else {
      const cursor = searchParams.get('cursor');
      body = cursor
        ? { data: [message(`msg_${cursor}`, `${cursor}@example.com`)], next_cursor: cursor === 'c1' ? 'c2' : null }
        : { data: [message('msg_first', 'ada@example.com')], next_cursor: 'c1' };
    }
    return gatewayAnswer(200, body);
  }) as unknown as typeof fetch;
  return urls;
}

/** Where the screen put the filters: the page's own URL (a declarative router: jsdom has no fetch Request for data routers). */
function LocationProbe() {
  return <output aria-label="Page query">{useLocation().search}</output>;
}

function renderScreen(path = `/projects/${PROJECT}/messages`) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/projects/:projectId/messages" element={<MessagesScreen />} />
        </Routes>
        <LocationProbe />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const logCalls = (urls: string[]) => urls.filter((u) => !u.includes('/stats'));

describe('the messages screen', () => {
  it('turns the filters into the query of the message log and the stats range, and keeps them in the page URL', async () => {
    const urls = fakeGateway();
    renderScreen();
    await screen.findByText('ada@example.com');
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'bounced' } });
    fireEvent.change(screen.getByLabelText('Recipient'), { target: { value: ' Ada@Example.com ' } });
    fireEvent.change(screen.getByLabelText('Email key'), { target: { value: 'welcome' } });
    fireEvent.change(screen.getByLabelText('From (UTC)'), { target: { value: '2026-11-01T00:00' } });
    fireEvent.change(screen.getByLabelText('To (UTC)'), { target: { value: '2026-11-03T12:30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));

    await waitFor(() => expect(logCalls(urls)).toHaveLength(2));
    expect(logCalls(urls)[1]).toBe(
      `/v1/projects/${PROJECT}/messages?status=bounced&email=ada%40example.com&email_key=welcome&from=2026-11-01T00%3A00%3A00.000Z&to=2026-11-03T12%3A30%3A59.999Z&limit=25`,
    );
    await waitFor(() => expect(urls).toContain(`/v1/projects/${PROJECT}/messages/stats?from=2026-11-01&to=2026-11-03`));
    expect(screen.getByLabelText('Page query')).toHaveTextContent(
      '?status=bounced&email=Ada%40Example.com&email_key=welcome&from=2026-11-01T00%3A00&to=2026-11-03T12%3A30',
    );
  });

  it('pages forward with next_cursor and back with the cursors it kept; each recipient links to the profile', async () => {
    const urls = fakeGateway();
    renderScreen();
    const first = await screen.findByRole('link', { name: 'ada@example.com' });
    expect(first).toHaveAttribute('href', `/projects/${PROJECT}/users/ada%40example.com`);
    const pages = screen.getByRole('navigation', { name: 'Pages' });
    expect(within(pages).getByRole('button', { name: 'Previous' })).toBeDisabled();

    fireEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    await screen.findByText('c1@example.com');
    fireEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    await screen.findByText('c2@example.com');
    expect(within(pages).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(logCalls(urls).map((u) => new URL(u, 'http://panel.test').searchParams.get('cursor'))).toEqual([null, 'c1', 'c2']);

    fireEvent.click(within(pages).getByRole('button', { name: 'Previous' }));
    await screen.findByText('c1@example.com');
    fireEvent.click(within(pages).getByRole('button', { name: 'Previous' }));
    await screen.findByText('ada@example.com');
    expect(screen.getByLabelText('Totals by status')).toHaveTextContent('3 accepted, 1 sent, 0 deferred, 2 bounced');
  });

  it('asks for the test messages with test=true when the Messages choice says so', async () => {
    const urls = fakeGateway();
    renderScreen();
    await screen.findByText('ada@example.com');
    expect(screen.queryByText('test')).toBeNull();
    fireEvent.change(screen.getByLabelText('Messages'), { target: { value: 'true' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(logCalls(urls)).toHaveLength(2));
    expect(logCalls(urls)[1]).toBe(`/v1/projects/${PROJECT}/messages?test=true&limit=25`);
    expect(screen.getByLabelText('Page query')).toHaveTextContent('?test=true');
  });

  it('marks a test message in the log with a test badge', async () => {
    globalThis.fetch = jest.fn((url: string) =>
      gatewayAnswer(
        200,
        url.includes('/stats')
          ? { data: [] }
          : {
              data: [{ ...message('msg_t', 'b+bounce@example.com'), test: true }, message('msg_r', 'real@example.com')],
              next_cursor: null,
            },
      ),
    ) as unknown as typeof fetch;
    renderScreen();
    const row = (await screen.findByText('b+bounce@example.com')).closest('tr')!;
    expect(within(row).getByText('test')).toBeInTheDocument();
    expect(within(screen.getByText('real@example.com').closest('tr')!).queryByText('test')).toBeNull();
  });

  it('asks the stats for the last 30 UTC days without a time range, and never more than 400 days', () => {
    const now = new Date('2026-11-23T23:59:00Z');
    expect(chartRange({}, now)).toEqual({ from: '2026-10-25', to: '2026-11-23' });
    expect(chartRange({ from: '2024-01-01T00:00', to: '2026-11-23T00:00' }, now)).toEqual({ from: '2025-10-20', to: '2026-11-23' });
    expect(messageLogQuery({ status: '', email: '  ' })).toEqual(expect.objectContaining({ status: undefined, email: undefined }));
  });
});
