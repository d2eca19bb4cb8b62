import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../app';
import { ApiKeysScreen } from './api-keys';
import { gatewayAnswer } from '../test-answer';

const existing = {
  id: 'key_0123456789abcdef0123',
  name: 'default',
  scope: 'full',
  created_at: '2026-11-01T10:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
};

/** The gateway: a session that may read keys, and POST /v1/keys refusing anything but HTTP Basic with the right key. */
function fakeGateway() {
  const calls: Array<{ url: string; method: string; authorization?: string }> = [];
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const authorization = (init?.headers as Record<string, string> | undefined)?.['Authorization'];
    calls.push({ url, method, ...(authorization ? { authorization } : {}) });
    let answer: { status: number; body: unknown };
    if (url === '/v1/auth/session') answer = { status: 200, body: { client_id: 'cl_demo', scope: 'full', via: 'session' } };
    else if (url === '/v1/keys' && method === 'GET') answer = { status: 200, body: { data: [existing] } };
    else if (url === '/v1/keys' && method === 'POST')
      answer =
        authorization === `Basic ${btoa('cl_demo:pb_full_right')}`
          ? { status: 201, body: { ...existing, id: 'key_fedcba9876543210fedc', name: 'checkout', scope: 'sdk', api_key: 'pb_sdk_secret' } }
          : { status: 401, body: { type: '/problems/unauthorized', title: 'Authentication is required', status: 401 } };
    else answer = { status: 404, body: { title: 'Not found', status: 404 } };
    return gatewayAnswer(answer.status, answer.body);
  }) as unknown as typeof fetch;
  return calls;
}

describe('the API keys screen', () => {
  it('creates a key with the full key typed for that one request (sessions may not), then shows the secret once', async () => {
    const calls = fakeGateway();
    render(
      <QueryClientProvider client={createQueryClient()}>
        <ApiKeysScreen />
      </QueryClientProvider>,
    );
    await screen.findByRole('row', { name: 'Key default' });
    fireEvent.change(screen.getByLabelText('Key name'), { target: { value: 'checkout' } });
    fireEvent.change(screen.getByLabelText('Your API key (scope full)'), { target: { value: 'pb_full_wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create sdk key' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That API key was not accepted');
    expect(screen.queryByLabelText('New API key')).toBeNull();

    fireEvent.change(screen.getByLabelText('Your API key (scope full)'), { target: { value: 'pb_full_right' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create sdk key' }));
    expect(await screen.findByLabelText('New API key')).toHaveTextContent('pb_sdk_secret');
    // The typed key is not kept in the form, and only the create call carried it.
    expect(screen.getByLabelText('Your API key (scope full)')).toHaveValue('');
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(calls.filter((c) => c.method === 'GET').every((c) => c.authorization === undefined)).toBe(true);
    expect(screen.getByLabelText('Create the key with curl')).toHaveTextContent('curl -u "cl_demo:$POSTBUS_API_KEY"');

    fireEvent.click(screen.getByRole('button', { name: 'I stored it' }));
    await waitFor(() => expect(screen.queryByLabelText('New API key')).toBeNull());
  });
});
