import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError, api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { basicAuthorization, currentSession } from '../api/session';
import type { ApiKey, CreateApiKeyRequest, CreatedApiKey, ListOf, Project } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { CopyButton } from '../components/copy-button';
import { DataTable } from '../components/data-table';
import { Badge, Button, Card, Empty, ErrorState, Loading, SelectField, SubmitButton, TextField, Time } from '../components/ui';
import { useProjects } from '../layout/layout';

const KEY_COLUMNS = ['Name', 'Scope', 'Project', 'Created', 'Last used', 'State'];

/** What a key may act on: the whole client, or the one project it is bound to (by name, else by id while the projects load). */
function KeyBinding({ projectId, projects }: { projectId: string | null; projects: Project[] }) {
  if (projectId === null) return <span>All projects</span>;
  const project = projects.find((p) => p.id === projectId);
  return project ? <span className="font-medium">{project.name}</span> : <code className="font-mono text-xs">{projectId}</code>;
}

/** A key's secret, shown once: it is stored only as a digest, so it can never be read again. */
function KeyOnce({ created, projects, onDismiss }: { created: CreatedApiKey; projects: Project[]; onDismiss: () => void }) {
  return (
    <div
      role="status"
      className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
    >
      <p className="font-medium">
        {created.name} ({created.scope}
        {created.project_id !== null && (
          <>
            , <KeyBinding projectId={created.project_id} projects={projects} /> only
          </>
        )}
        ) — copy this key now. It is shown only this once: Postbus keeps only a digest of it. Keep it in your backend's secret store, never
        in a browser or an app.
      </p>
      {created.project_id !== null && (
        // A bound key names its client and project itself: no client id goes with it.
        <p className="mt-2">
          Send it alone: <code className="font-mono text-xs">Authorization: Bearer &lt;key&gt;</code>,{' '}
          <code className="font-mono text-xs">X-Postmark-Server-Token</code>, or as the SMTP password with any user name.
        </p>
      )}
      <p className="mt-2 flex flex-wrap items-center gap-2">
        <code aria-label="New API key" className="rounded bg-white px-2 py-1 font-mono text-xs break-all dark:bg-slate-900">
          {created.api_key}
        </code>
        <CopyButton value={created.api_key} label="Copy the new API key" />
        <Button onClick={onDismiss}>I stored it</Button>
      </p>
    </div>
  );
}

function CreateKey({ clientId, projects, onCreated }: { clientId: string; projects: Project[]; onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<CreateApiKeyRequest['scope']>('sdk');
  const [projectId, setProjectId] = useState('');
  const [ownKey, setOwnKey] = useState('');
  const create = useMutation({
    // POST /v1/keys is keyOnly: a panel session may not mint a key that would outlive the key that
    // opened it, so this one request carries a full key typed here (sent once, never kept).
    mutationFn: (request: CreateApiKeyRequest) =>
      api<CreatedApiKey>('/keys', {
        method: 'POST',
        body: request,
        headers: { Authorization: basicAuthorization(clientId, ownKey.trim()) },
      }),
    onSuccess: (key) => {
      setName('');
      setOwnKey('');
      onCreated(key);
    },
  });
  const request: CreateApiKeyRequest = { name: name.trim(), scope, ...(projectId ? { project_id: projectId } : {}) };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(request);
  };
  const body = JSON.stringify({ ...request, name: request.name || 'checkout backend' });
  const command = `curl -u "${clientId}:$POSTBUS_API_KEY" -H 'Content-Type: application/json' \\\n  ${window.location.origin}/v1/keys -d '${body}'`;
  const refused =
    create.error instanceof ApiError && create.error.status === 401
      ? 'That API key was not accepted: enter a valid key of this client with scope "full".'
      : create.error instanceof ApiError && create.error.status === 403
        ? 'That key has scope "sdk": only a key with scope "full" may create keys.'
        : null;
  return (
    <Card title="Create a key">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">
        Postbus creates keys only for a request made with an API key, never with a panel session (a session must not create credentials that
        outlive the key that opened it). Enter a key of scope <strong>full</strong> below: it is sent with this one request and not kept. Or
        run the command at the bottom with it.
      </p>
      <form onSubmit={submit} className="grid gap-3 md:grid-cols-2">
        <TextField label="Key name" value={name} onValue={setName} required maxLength={100} placeholder="checkout backend" />
        <SelectField label="Scope" value={scope} onChange={(e) => setScope(e.target.value as CreateApiKeyRequest['scope'])}>
          <option value="sdk">sdk — send, users, payments, unsubscribe, erase</option>
          <option value="full">full — everything, including management</option>
          <option value="test">test — send test messages (simulated, never delivered) and read them</option>
        </SelectField>
        <SelectField label="Bind to project" value={projectId} onValue={setProjectId}>
          <option value="">All projects (the whole client)</option>
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </SelectField>
        <TextField label="Your API key (scope full)" type="password" autoComplete="off" value={ownKey} onValue={setOwnKey} required />
        <div className="md:col-span-2">
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">{`Create ${scope} key`}</SubmitButton>
        </div>
      </form>
      {create.isError && (
        <div className="mt-3">{refused ? <ErrorState error={new Error(refused)} /> : <ErrorState error={create.error} />}</div>
      )}
      <div className="mt-4">
        <p className="mb-1 text-sm font-medium">With curl</p>
        <div className="flex items-start gap-2">
          <pre
            aria-label="Create the key with curl"
            className="min-w-0 flex-1 overflow-x-auto rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-800"
          >
            {command}
          </pre>
          <CopyButton value={command} label="Copy the curl command" />
        </div>
      </div>
    </Card>
  );
}

/** The client's API keys: who may call Postbus, with what scope; create one, revoke one. */
export function ApiKeysScreen() {
  const queryClient = useQueryClient();
  const session = useQuery({ queryKey: queryKeys.session, queryFn: currentSession, staleTime: 60_000, retry: false });
  const keys = useQuery({ queryKey: queryKeys.apiKeys, queryFn: () => api<ListOf<ApiKey>>('/keys') });
  const projects = useProjects().data?.data ?? [];
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => api<ApiKey>(`/keys/${key.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
    },
  });
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">API keys</h1>
      {created && <KeyOnce created={created} projects={projects} onDismiss={() => setCreated(null)} />}
      <Card title="Keys">
        {keys.isPending ? (
          <Loading what="API keys" />
        ) : keys.isError ? (
          <ErrorState error={keys.error} retry={() => void keys.refetch()} />
        ) : keys.data.data.length === 0 ? (
          <Empty>No API key.</Empty>
        ) : (
          <DataTable caption="API keys of this client, oldest first" minWidth="min-w-[48rem]" columns={KEY_COLUMNS} lastColumn="Actions">
            {keys.data.data.map((key) => (
              <tr key={key.id} aria-label={`Key ${key.name}`} className={key.revoked_at ? 'text-slate-400 dark:text-slate-500' : ''}>
                <td className="py-2 pr-3">
                  <span className="font-medium">{key.name}</span>
                  <br />
                  <code className="font-mono text-xs text-slate-500 dark:text-slate-400">{key.id}</code>
                </td>
                <td className="py-2 pr-3">
                  <Badge tone={key.scope === 'full' ? 'blue' : key.scope === 'test' ? 'amber' : 'gray'}>{key.scope}</Badge>
                </td>
                <td className="py-2 pr-3">
                  <KeyBinding projectId={key.project_id} projects={projects} />
                </td>
                <td className="py-2 pr-3 text-xs">
                  <Time at={key.created_at} />
                </td>
                <td className="py-2 pr-3 text-xs">{key.last_used_at ? <Time at={key.last_used_at} /> : 'never'}</td>
                <td className="py-2 pr-3 text-xs">
                  {key.revoked_at ? (
                    <span className="flex flex-col gap-0.5">
                      <Badge tone="red">revoked</Badge>
                      <Time at={key.revoked_at} />
                    </span>
                  ) : (
                    <Badge tone="green">active</Badge>
                  )}
                </td>
                <td className="py-2 text-right">
                  {!key.revoked_at && (
                    <Button tone="danger" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
      {session.data ? (
        <CreateKey
          clientId={session.data.client_id}
          projects={projects}
          onCreated={(key) => {
            setCreated(key);
            void queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
          }}
        />
      ) : session.isError ? (
        <ErrorState error={session.error} />
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => {
          if (!open) {
            setRevoking(null);
            revoke.reset();
          }
        }}
        title={`Revoke ${revoking?.name ?? 'this key'}?`}
        confirmLabel="Revoke key"
        onConfirm={() => revoking && revoke.mutate(revoking)}
        pending={revoke.isPending}
        error={revoke.error}
      >
        <p>
          Every request made with it, and every panel session it opened, is refused within a second. This cannot be undone: a backend still
          using it needs a new key.
        </p>
      </ConfirmDialog>
    </div>
  );
}
