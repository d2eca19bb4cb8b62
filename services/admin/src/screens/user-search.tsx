import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Card, SubmitButton, TextField } from '../components/ui';

/** Finds a user by email or user_id; the profile's URL names the user, so it can be shared. */
export function UserSearchForm({ initial = '' }: { initial?: string }) {
  const { projectId = '' } = useParams();
  const navigate = useNavigate();
  const [ref, setRef] = useState(initial);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = ref.trim();
    if (value) void navigate(`/projects/${projectId}/users/${encodeURIComponent(value)}`);
  };
  return (
    <form role="search" onSubmit={submit} className="flex flex-wrap items-end gap-2">
      <div className="min-w-[16rem] flex-1">
        <TextField label="Email or user_id" type="search" required value={ref} onValue={setRef} placeholder="ada@example.com or u_123" />
      </div>
      <SubmitButton>Find user</SubmitButton>
    </form>
  );
}

export function UserSearchScreen() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">User profile</h1>
      <Card>
        <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">
          Look up a user of this project to see their attributes, subscription, payments and every email sent to them with its delivery
          status.
        </p>
        <UserSearchForm />
      </Card>
    </div>
  );
}
