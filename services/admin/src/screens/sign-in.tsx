import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { signIn, signInErrorMessage } from '../api/session';
import { SubmitButton, TextField } from '../components/ui';

export interface SignInState {
  /** The session ended (expired, signed out elsewhere, key revoked) while the panel was open. */
  expired?: boolean;
  /** Where to go back to once signed in. */
  from?: string;
}

export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [clientId, setClientId] = useState('');
  const [apiKey, setApiKey] = useState('');
  const mutation = useMutation({ mutationFn: () => signIn(clientId, apiKey), onSuccess: onSignedIn });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate();
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Sign in">
      <TextField label="Client ID" name="client_id" autoComplete="username" required value={clientId} onValue={setClientId} />
      <TextField
        label="API key"
        name="api_key"
        type="password"
        autoComplete="current-password"
        required
        value={apiKey}
        onValue={setApiKey}
      />
      {mutation.isError && (
        <p role="alert" className="rounded-md bg-red-50 p-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {signInErrorMessage(mutation.error)}
        </p>
      )}
      <SubmitButton pending={mutation.isPending} pendingLabel="Signing in…">
        Sign in
      </SubmitButton>
    </form>
  );
}

export function SignIn() {
  const navigate = useNavigate();
  const location = useLocation();
  const state = (location.state ?? {}) as SignInState;
  const queryClient = useQueryClient();
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold">Postbus admin</h1>
        <p className="mt-1 mb-5 text-sm text-slate-500 dark:text-slate-400">Sign in with your client ID and an API key of scope full.</p>
        {state.expired && (
          <p role="status" className="mb-4 rounded-md bg-amber-50 p-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
            Your session has ended. Sign in again to continue.
          </p>
        )}
        <SignInForm
          onSignedIn={() => {
            queryClient.clear();
            void navigate(state.from ?? '/', { replace: true });
          }}
        />
      </div>
    </main>
  );
}
