import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { createQueryClient } from '../app';
import type { Webhook, WebhookFormat } from '../api/types';
import { gatewayAnswer } from '../test-answer';
import { PROJECT } from '../test-fixtures';
import { WebhookDetailScreen } from './webhook-detail';
import { WebhooksScreen } from './webhooks';

const WEBHOOK_ID = 'we_0123456789abcdef01234567';

const existing: Webhook = {
  id: WEBHOOK_ID,
  url: 'https://example.com/hooks/postbus',
  events: ['message.sent', 'user.erased'],
  project_id: null,
  description: null,
  enabled: true,
  format: 'standard',
  disabled_reason: null,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
};

/** Events that neither Resend's nor Postmark's format has a counterpart for (docs/webhook-formats.md): a few are enough here. */
const ONLY_STANDARD = ['user.erased', 'user.erasure_scheduled', 'message.canceled'];

/** The 422 the gateway answers when listed events do not fit the format, as the dispatcher words it. */
function notInFormat(format: WebhookFormat, events: string[]) {
  const missing = events.filter((e) => ONLY_STANDARD.includes(e));
  if (format === 'standard' || missing.length === 0) return null;
  return {
    type: '/problems/webhook-event-not-in-format',
    title: 'The request cannot be processed',
    status: 422,
    detail: `The ${format} format has no counterpart for ${missing.join(', ')}: an endpoint in it would never get that event (docs/webhook-formats.md).`,
    errors: missing.map((e) => ({ pointer: `/events/${events.indexOf(e)}`, message: `has no counterpart in the ${format} format` })),
  };
}

/**
 * The gateway, as far as the webhook screens ask it: a session, the client's one project, the
 * endpoints (one, standard), create and edit refusing events the format has no counterpart for,
 * and an empty delivery log.
 */
function fakeGateway() {
  const calls: Array<{ url: string; method: string; body?: unknown }> = [];
  const webhooks: Webhook[] = [existing];
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ url, method, ...(body !== undefined ? { body } : {}) });
    const { pathname } = new URL(url, 'http://panel.test');
    const settings = body as Partial<Webhook> | undefined;
    const refused = settings ? notInFormat(settings.format ?? 'standard', settings.events ?? []) : null;
    if (refused) return gatewayAnswer(422, refused);
    if (pathname === '/v1/auth/session') return gatewayAnswer(200, { client_id: 'cl_demo', scope: 'full', via: 'session' });
    if (pathname === '/v1/projects') return gatewayAnswer(200, { data: [{ id: PROJECT, name: 'Shop' }] });
    if (pathname === '/v1/webhooks' && method === 'GET') return gatewayAnswer(200, { data: webhooks });
    if (pathname === '/v1/webhooks' && method === 'POST') {
      const created: Webhook = { ...existing, ...settings, id: 'we_fedcba9876543210fedcba98', format: settings?.format ?? 'standard' };
      webhooks.push(created);
      return gatewayAnswer(201, { ...created, secret: 'whsec_c2VjcmV0' });
    }
    if (pathname === `/v1/webhooks/${WEBHOOK_ID}` && method === 'GET') return gatewayAnswer(200, webhooks[0]);
    if (pathname === `/v1/webhooks/${WEBHOOK_ID}` && method === 'PATCH') {
      webhooks[0] = { ...webhooks[0]!, ...settings };
      return gatewayAnswer(200, webhooks[0]);
    }
    if (pathname === `/v1/webhooks/${WEBHOOK_ID}/deliveries`) return gatewayAnswer(200, { data: [], next_cursor: null });
    return gatewayAnswer(404, { title: 'Not found', status: 404 });
  }) as unknown as typeof fetch;
  return calls;
}

function renderAt(path: string) {
  const calls = fakeGateway();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/webhooks" element={<WebhooksScreen />} />
          <Route path="/webhooks/:webhookId" element={<WebhookDetailScreen />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return calls;
}

/** The list's entry of the endpoint at `url` (whose link is also in the notice of a just-created one). */
const endpointRow = async (url: string) =>
  (await screen.findAllByRole('link', { name: url })).map((link) => link.closest('li')).find((row) => row !== null) as HTMLElement;
const formatField = () => screen.getByLabelText('Format');

describe('the webhook screens, with the endpoint format', () => {
  it('offers the three formats with what the receiver verifies with, sends the chosen one, and lists each endpoint with its format', async () => {
    const calls = renderAt('/webhooks');
    expect(await endpointRow(existing.url)).toHaveTextContent('Standard Webhooks format');
    fireEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));

    expect(formatField()).toHaveDisplayValue("Standard Webhooks — Postbus's bodies");
    expect(formatField()).toHaveAccessibleDescription('Verify with any Standard Webhooks library and the signing secret.');
    expect(
      within(formatField())
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(["Standard Webhooks — Postbus's bodies", "Resend — Resend's events, Svix headers", "Postmark — Postmark's record types"]);
    fireEvent.change(formatField(), { target: { value: 'postmark' } });
    expect(formatField()).toHaveAccessibleDescription(
      "Unsigned by Postmark, but Postbus's webhook-* headers are there: verify them with any Standard Webhooks library.",
    );
    fireEvent.change(formatField(), { target: { value: 'resend' } });
    expect(formatField()).toHaveAccessibleDescription('Verify with svix or resend.webhooks.verify and the same signing secret.');

    fireEvent.change(screen.getByLabelText('Endpoint URL'), { target: { value: 'https://example.com/hooks/resend' } });
    fireEvent.click(screen.getByLabelText('All events'));
    fireEvent.click(screen.getByLabelText('message.sent'));
    fireEvent.click(screen.getByLabelText('user.erased'));
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    const refusal = await screen.findByRole('alert');
    expect(refusal).toHaveTextContent('The resend format has no counterpart for user.erased');
    expect(refusal).toHaveTextContent('/events/1: has no counterpart in the resend format');

    fireEvent.click(screen.getByLabelText('user.erased'));
    fireEvent.click(screen.getByRole('button', { name: 'Create endpoint' }));
    expect(await screen.findByLabelText('Signing secret')).toHaveTextContent('whsec_c2VjcmV0');
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      {
        url: 'https://example.com/hooks/resend',
        events: ['message.sent', 'user.erased'],
        project_id: null,
        description: null,
        format: 'resend',
      },
      { url: 'https://example.com/hooks/resend', events: ['message.sent'], project_id: null, description: null, format: 'resend' },
    ]);
    expect(await endpointRow('https://example.com/hooks/resend')).toHaveTextContent('Resend format');
  });

  it("shows the endpoint's format, and an edit changes it, with the API's 422 while the listed events do not fit the new format", async () => {
    const calls = renderAt(`/webhooks/${WEBHOOK_ID}`);
    expect(await screen.findByText("Standard Webhooks — Postbus's bodies")).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    expect(formatField()).toHaveValue('standard');
    fireEvent.change(formatField(), { target: { value: 'resend' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The resend format has no counterpart for user.erased: an endpoint in it would never get that event (docs/webhook-formats.md). /events/1: has no counterpart in the resend format',
    );

    fireEvent.click(screen.getByLabelText('All events'));
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Save changes' })).toBeNull());
    expect(screen.getByText("Resend — Resend's events, Svix headers")).toBeInTheDocument();
    expect(screen.getByText('Verify with svix or resend.webhooks.verify and the same signing secret.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls.filter((c) => c.method === 'PATCH').map((c) => c.body)).toEqual([
      { url: existing.url, events: ['message.sent', 'user.erased'], project_id: null, description: null, format: 'resend' },
      { url: existing.url, events: ['*'], project_id: null, description: null, format: 'resend' },
    ]);

    fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    expect(formatField()).toHaveValue('resend');
  });
});
