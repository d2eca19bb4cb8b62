import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../app';
import { ApiKeysScreen } from './api-keys';
import { gatewayAnswer } from '../test-answer';
import { PROJECT } from '../test-fixtures';

const existing = {
  id: 'key_0123456789abcdef0123',
  name: 'default',
  scope: 'full',
  created_at: '2026-11-01T10:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
  project_id: null,
};
const shop = { id: PROJECT, name: 'Shop' };

/**
 * The gateway: a session that may read keys and the client's one project (Shop), and POST /v1/keys
 * refusing anything but HTTP Basic with the right key; a created key is listed after the existing one.
 */
function fakeGateway() {
  const calls: Array<{ url: string; method: string; authorization?: string; body?: unknown }> = [];
  const keys: unknown[] = [existing];
  globalThis.fetch = jest.fn((url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const authorization = (init?.headers as Record<string, string> | undefined)?.['Authorization'];
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ url, method, ...(authorization ? { authorization } : {}), ...(body !== undefined ? { body } : {}) });
    let answer: { status: number; body: unknown };
    if (url === '/v1/auth/session') answer = { status: 200, body: { client_id: 'cl_demo', scope: 'full', via: 'session' } };
    else if (url.startsWith('/v1/projects?') && method === 'GET') answer = { status: 200, body: { data: [shop] } };
    else if (url === '/v1/keys' && method === 'GET') answer = { status: 200, body: { data: keys } };
    else if (url === '/v1/keys' && method === 'POST') {
      const { name, scope, project_id } = body as { name: string; scope: string; project_id?: string };
      const created = { ...existing, id: 'key_fedcba9876543210fedc', name, scope, project_id: project_id ?? null };
      const accepted = authorization === `Basic ${btoa('cl_demo:pb_full_right')}`;
      if (accepted) keys.push(created);
      answer = accepted
        ? { status: 201, body: { ...created, api_key: 'pb_sdk_secret' } }
        : { status: 401, body: { type: '/problems/unauthorized', title: 'Authentication is required', status: 401 } };
    } else answer = { status: 404, body: { title: 'Not found', status: 404 } };
    return gatewayAnswer(answer.status, answer.body);
  }) as unknown as typeof fetch;
  return calls;
}

/** The screen against the fake gateway: its calls, as they are made. */
function openKeysScreen() {
  const calls = fakeGateway();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ApiKeysScreen />
    </QueryClientProvider>,
  );
  return calls;
}

/** Types the key's name (unless already typed) and the full key this one request carries, then creates an sdk key. */
function createSdkKey(ownKey: string, name?: string) {
  if (name !== undefined) fireEvent.change(screen.getByLabelText('Key name'), { target: { value: name } });
  fireEvent.change(screen.getByLabelText('Your API key (scope full)'), { target: { value: ownKey } });
  fireEvent.click(screen.getByRole('button', { name: 'Create sdk key' }));
}

describe('the API keys screen', () => {
  it('creates a key with the full key typed for that one request (sessions may not), then shows the secret once', async () => {
    const calls = openKeysScreen();
    await screen.findByRole('row', { name: 'Key default' });
    createSdkKey('pb_full_wrong', 'checkout');
    expect(await screen.findByRole('alert')).toHaveTextContent('That API key was not accepted');
    expect(screen.queryByLabelText('New API key')).toBeNull();

    createSdkKey('pb_full_right');
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

  it('binds a key to a project: project_id is sent, the list names its project, and the secret says it is sent alone', async () => {
    const calls = openKeysScreen();
    expect(await screen.findByRole('row', { name: 'Key default' })).toHaveTextContent('All projects');
    const binding = screen.getByLabelText('Bind to project');
    expect(binding).toHaveValue('');
    expect(binding).toHaveDisplayValue('All projects (the whole client)');
    await screen.findByRole('option', { name: 'Shop' });

    fireEvent.change(binding, { target: { value: PROJECT } });
    expect(screen.getByLabelText('Create the key with curl')).toHaveTextContent(`"project_id":"${PROJECT}"`);
    createSdkKey('pb_full_right', 'shop backend');

    expect(await screen.findByLabelText('New API key')).toHaveTextContent('pb_sdk_secret');
    expect(screen.getByRole('status')).toHaveTextContent('shop backend (sdk, Shop only)');
    expect(screen.getByRole('status')).toHaveTextContent('Send it alone: Authorization: Bearer <key>, X-Postmark-Server-Token');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'shop backend', scope: 'sdk', project_id: PROJECT });
    const row = await screen.findByRole('row', { name: 'Key shop backend' });
    expect(row).toHaveTextContent('Shop');
    expect(row).not.toHaveTextContent('All projects');
  });

  it('creates a key of the whole client when no project is chosen: no project_id is sent, and no usage note', async () => {
    const calls = openKeysScreen();
    await screen.findByRole('option', { name: 'Shop' });
    createSdkKey('pb_full_right', 'ops');
    await screen.findByLabelText('New API key');
    expect(screen.getByRole('status')).not.toHaveTextContent('Send it alone');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'ops', scope: 'sdk' });
    expect(await screen.findByRole('row', { name: 'Key ops' })).toHaveTextContent('All projects');
  });
});
