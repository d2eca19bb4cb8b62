import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../app';
import { SignInForm } from './sign-in';
import { gatewayAnswer } from '../test-answer';

interface FakeAnswer {
  status: number;
  body?: unknown;
}

/** The browser's fetch, answering as the gateway would. */
function fakeFetch(answer: FakeAnswer) {
  const fetchMock = jest.fn((_url: string, _init?: RequestInit) => gatewayAnswer(answer.status, answer.body));
  globalThis.fetch = fetchMock as unknown as typeof fetch;
  return fetchMock;
}

function renderForm(onSignedIn = jest.fn()) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <SignInForm onSignedIn={onSignedIn} />
    </QueryClientProvider>,
  );
  fireEvent.change(screen.getByLabelText('Client ID'), { target: { value: 'cl_demo' } });
  fireEvent.change(screen.getByLabelText('API key'), { target: { value: 'pb_full_wrong' } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
  return onSignedIn;
}

describe('the sign-in form', () => {
  it('when the key is wrong, then it says so in the form and stays signed out', async () => {
    const fetchMock = fakeFetch({
      status: 401,
      body: { type: '/problems/unauthorized', title: 'Authentication is required', status: 401 },
    });
    const onSignedIn = renderForm();
    expect(await screen.findByRole('alert')).toHaveTextContent('The client ID or API key is not correct');
    expect(onSignedIn).not.toHaveBeenCalled();
    // Relative URL (the bundle holds no API address) and the credentials as HTTP Basic.
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/v1/auth/session/cookie');
    expect(init?.method).toBe('POST');
    expect((init?.headers as Record<string, string>)['Authorization']).toBe(`Basic ${btoa('cl_demo:pb_full_wrong')}`);
  });

  it('when the gateway cannot be reached, then the form says so rather than going blank', async () => {
    globalThis.fetch = jest.fn(() => Promise.reject(new TypeError('Failed to fetch')));
    renderForm();
    expect(await screen.findByRole('alert')).toHaveTextContent('could not be reached');
  });

  it('when the key is right, then the panel goes on', async () => {
    fakeFetch({ status: 201, body: { token_type: 'Cookie', expires_at: '2030-01-01T00:00:00.000Z', scope: 'full' } });
    const onSignedIn = renderForm();
    await waitFor(() => expect(onSignedIn).toHaveBeenCalled());
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
