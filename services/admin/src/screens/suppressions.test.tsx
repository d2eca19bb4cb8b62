import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { createQueryClient } from '../app';
import { SUPPRESSION_REASONS, type Suppression } from '../api/types';
import { gatewayAnswer } from '../test-answer';
import { SuppressionsScreen } from './suppressions';

const PROJECT = '0123456789abcdef01234567';
const LIST = `/v1/projects/${PROJECT}/suppressions`;

/** A suppression shown with `reason` (its strongest), which came after `earlier` ones. */
const entry = (
  email: string,
  reason: Suppression['reason'],
  message_id: string | null = null,
  earlier: Suppression['reason'][] = [],
): Suppression => ({
  email,
  reason,
  created_at: '2026-11-26T10:00:00.000Z',
  message_id,
  reasons: [...earlier, reason].map((r, i) => ({
    reason: r,
    created_at: `2026-11-26T1${i}:00:00.000Z`,
    message_id: r === reason ? message_id : null,
  })),
});

/**
 * The gateway, as far as this screen asks it: the suppression list (two pages, filters by email and
 * reason), POST applied at once, DELETE refused 409 for a complaint as the gateway does.
 */
function fakeGateway() {
  const calls: Array<{ url: string; method: string; body?: unknown }> = [];
  let entries: Suppression[] = [
    entry('bounced@example.com', 'hard_bounce', 'msg_0123456789abcdef0123456789abcdef'),
    entry('spam@example.com', 'complaint', 'msg_fedcba9876543210fedcba9876543210'),
    entry('later-spam@example.com', 'complaint', 'msg_00000000000000000000000000000001', ['manual']),
  ];
  const older = entry('old@example.com', 'manual');
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    // The panel sends its bodies as JSON text.
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ url, method, ...(body !== undefined ? { body } : {}) });
    const { pathname, searchParams } = new URL(url, 'http://panel.test');
    if (pathname === LIST && method === 'GET') {
      const email = searchParams.get('email');
      const reason = searchParams.get('reason');
      if (searchParams.get('cursor') === 'c1') return gatewayAnswer(200, { data: [older], next_cursor: null });
      const matching = entries.filter((e) => (!email || e.email === email) && (!reason || e.reasons.some((r) => r.reason === reason)));
      return gatewayAnswer(200, { data: matching, next_cursor: email || reason ? null : 'c1' });
    }
    if (pathname === LIST && method === 'POST') {
      entries = [entry((body as { email: string }).email, 'manual'), ...entries];
      return gatewayAnswer(200, { status: 'accepted', request_id: 'req_1' });
    }
    if (pathname.startsWith(`${LIST}/`) && method === 'DELETE') {
      const email = decodeURIComponent(pathname.slice(LIST.length + 1));
      const found = entries.find((e) => e.email === email);
      if (!found) return gatewayAnswer(404, { title: 'Not found', status: 404, detail: 'This address is not suppressed in this project.' });
      if (found.reasons.some((r) => r.reason === 'complaint'))
        return gatewayAnswer(409, {
          type: '/problems/suppression-is-a-complaint',
          title: 'Conflict',
          status: 409,
          detail: 'The recipient reported a message as spam: mailing them again would hurt every sender on this installation.',
        });
      entries = entries.filter((e) => e !== found);
      return gatewayAnswer(200, { status: 'accepted', request_id: 'req_2' });
    }
    return gatewayAnswer(404, { title: 'Not found', status: 404 });
  }) as unknown as typeof fetch;
  return calls;
}

function LocationProbe() {
  return <output aria-label="Page query">{useLocation().search}</output>;
}

function renderScreen() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[`/projects/${PROJECT}/suppressions`]}>
        <Routes>
          <Route path="/projects/:projectId/suppressions" element={<SuppressionsScreen />} />
        </Routes>
        <LocationProbe />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const listCalls = (calls: Array<{ url: string; method: string }>) =>
  calls.filter((c) => c.method === 'GET' && new URL(c.url, 'http://panel.test').searchParams.get('limit') !== '1');

describe('the suppressions screen', () => {
  it('lists the suppressions newest first with the message that caused them, filters by reason and address, and pages', async () => {
    const calls = fakeGateway();
    renderScreen();
    const row = await screen.findByRole('row', { name: 'Suppression of bounced@example.com' });
    expect(row).toHaveTextContent('hard_bounce');
    expect(within(row).getByRole('link', { name: 'msg_0123456789abcdef0123456789abcdef' })).toHaveAttribute(
      'href',
      `/projects/${PROJECT}/messages?email=bounced%40example.com`,
    );
    expect(within(row).getByRole('link', { name: 'bounced@example.com' })).toHaveAttribute(
      'href',
      `/projects/${PROJECT}/users/bounced%40example.com`,
    );
    // Every reason of the contract, and only those, is a filter.
    expect(
      within(screen.getByLabelText('Reason'))
        .getAllByRole('option')
        .map((o) => o.getAttribute('value')),
    ).toEqual(['', ...SUPPRESSION_REASONS]);

    const pages = screen.getByRole('navigation', { name: 'Pages' });
    fireEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    await screen.findByRole('row', { name: 'Suppression of old@example.com' });
    expect(within(pages).getByRole('button', { name: 'Next' })).toBeDisabled();
    fireEvent.click(within(pages).getByRole('button', { name: 'Previous' }));
    await screen.findByRole('row', { name: 'Suppression of bounced@example.com' });

    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'complaint' } });
    fireEvent.change(screen.getByLabelText('Address'), { target: { value: ' Spam@Example.com ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(screen.queryByRole('row', { name: 'Suppression of bounced@example.com' })).toBeNull());
    expect(screen.getByRole('row', { name: 'Suppression of spam@example.com' })).toHaveTextContent('complaint');
    expect(listCalls(calls).map((c) => c.url)).toEqual([
      `${LIST}?limit=25`,
      `${LIST}?limit=25&cursor=c1`,
      `${LIST}?email=spam%40example.com&reason=complaint&limit=25`,
    ]);
    expect(screen.getByLabelText('Page query')).toHaveTextContent('?email=Spam%40Example.com&reason=complaint');
  });

  it('adds an address with reason manual and shows it once listed; removes one after a confirmation naming the consequence', async () => {
    const calls = fakeGateway();
    renderScreen();
    await screen.findByRole('row', { name: 'Suppression of bounced@example.com' });

    fireEvent.change(screen.getByLabelText('Address to suppress'), { target: { value: 'Grace@Example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Suppress' }));
    expect(await screen.findByText(/grace@example.com is suppressed/)).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'grace@example.com', reason: 'manual' });
    const added = await screen.findByRole('row', { name: 'Suppression of grace@example.com' });
    expect(added).toHaveTextContent('manual');

    fireEvent.click(within(added).getByRole('button', { name: 'Remove grace@example.com' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove grace@example.com from the suppression list?' });
    expect(dialog).toHaveTextContent('Postbus will mail this address again');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(/grace@example.com is no longer suppressed/)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('row', { name: 'Suppression of grace@example.com' })).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([`${LIST}/grace%40example.com`]);
  });

  it("shows the API's reason when it refuses to remove a complaint, and keeps the address listed", async () => {
    fakeGateway();
    renderScreen();
    const row = await screen.findByRole('row', { name: 'Suppression of spam@example.com' });
    fireEvent.click(within(row).getByRole('button', { name: 'Remove spam@example.com' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove spam@example.com from the suppression list?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The recipient reported a message as spam');
    expect(screen.getByRole('row', { name: 'Suppression of spam@example.com' })).toBeInTheDocument();
  });

  it('shows every reason of an address, the strongest first, and warns of a complaint that came after a manual suppression', async () => {
    fakeGateway();
    renderScreen();
    const row = await screen.findByRole('row', { name: 'Suppression of later-spam@example.com' });
    expect(
      within(row)
        .getAllByText(/^(complaint|manual)$/)
        .map((badge) => badge.textContent),
    ).toEqual(['complaint', 'manual']);
    fireEvent.click(within(row).getByRole('button', { name: 'Remove later-spam@example.com' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove later-spam@example.com from the suppression list?' });
    expect(dialog).toHaveTextContent('Its owner reported a message as spam.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The recipient reported a message as spam');
  });
});
