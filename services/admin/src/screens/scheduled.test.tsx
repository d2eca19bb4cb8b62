import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createQueryClient } from '../app';
import type { Message } from '../api/types';
import { gatewayAnswer } from '../test-answer';
import { PROJECT, testMessage } from '../test-fixtures';
import { ScheduledScreen } from './scheduled';

const MESSAGES = `/v1/projects/${PROJECT}/messages`;

const scheduled = (id: string, email: string): Message =>
  testMessage({
    id,
    email,
    status: 'scheduled',
    subject: null,
    send_at: '2026-12-24T18:00:00.000Z',
    created_at: '2026-11-27T10:00:00.000Z',
    updated_at: '2026-11-27T10:00:00.000Z',
    timeline: [{ sequence: 1, event: 'scheduled', at: '2026-11-27T10:00:00.000Z' }],
  });

/**
 * The gateway, as far as this screen asks it: the log filtered by status=scheduled, and the cancel
 * (answered 409 for `late@`, whose message a worker is sending, as the gateway does).
 */
function fakeGateway() {
  const calls: Array<{ url: string; method: string }> = [];
  let waiting = [scheduled('msg_a', 'ada@example.com'), scheduled('msg_late', 'late@example.com')];
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    calls.push({ url, method });
    const { pathname, searchParams } = new URL(url, 'http://panel.test');
    if (pathname === MESSAGES && method === 'GET' && searchParams.get('status') === 'scheduled')
      return gatewayAnswer(200, { data: waiting, next_cursor: null });
    const cancel = /\/messages\/([^/]+)\/cancel$/.exec(pathname);
    if (cancel && method === 'POST') {
      const found = waiting.find((m) => m.id === cancel[1]);
      if (!found) return gatewayAnswer(404, { title: 'Not found', status: 404 });
      if (found.email.startsWith('late'))
        return gatewayAnswer(409, {
          type: '/problems/message-not-cancelable',
          title: 'Conflict',
          status: 409,
          detail: 'The message was sent or is being sent: only a scheduled message can be cancelled.',
        });
      waiting = waiting.filter((m) => m !== found);
      return gatewayAnswer(200, { ...found, status: 'canceled' });
    }
    return gatewayAnswer(404, { title: 'Not found', status: 404 });
  }) as unknown as typeof fetch;
  return calls;
}

function renderScreen() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[`/projects/${PROJECT}/scheduled`]}>
        <Routes>
          <Route path="/projects/:projectId/scheduled" element={<ScheduledScreen />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the scheduled screen', () => {
  it('lists the scheduled messages with their time, and cancels one after a confirmation', async () => {
    const calls = fakeGateway();
    renderScreen();
    const row = await screen.findByRole('row', { name: 'Scheduled message to ada@example.com' });
    expect(row.querySelector('time')).toHaveAttribute('datetime', '2026-12-24T18:00:00.000Z');
    expect(calls[0]!.url).toBe(`${MESSAGES}?status=scheduled&limit=25`);

    fireEvent.click(within(row).getByRole('button', { name: 'Cancel the message to ada@example.com' }));
    const dialog = screen.getByRole('dialog', { name: 'Cancel the message to ada@example.com?' });
    expect(dialog).toHaveTextContent('It will never be sent.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel the message' }));
    expect(await screen.findByText(/The message to ada@example.com is cancelled/)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('row', { name: 'Scheduled message to ada@example.com' })).toBeNull());
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual([`${MESSAGES}/msg_a/cancel`]);
  });

  it("shows the API's reason when the message is already on its way, and keeps it listed", async () => {
    fakeGateway();
    renderScreen();
    const row = await screen.findByRole('row', { name: 'Scheduled message to late@example.com' });
    fireEvent.click(within(row).getByRole('button', { name: 'Cancel the message to late@example.com' }));
    const dialog = screen.getByRole('dialog', { name: 'Cancel the message to late@example.com?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel the message' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The message was sent or is being sent');
    expect(screen.getByRole('row', { name: 'Scheduled message to late@example.com' })).toBeInTheDocument();
  });
});
