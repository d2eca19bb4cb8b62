import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSenderDomains, useTrackingDomains } from '../api/catalog';
import { queryKeys } from '../api/query-keys';
import type { CreateProjectRequest, Project } from '../api/types';
import { useProjects } from '../layout/layout';
import { Badge, Button, Card, Empty, ErrorState, Loading, SelectField, SubmitButton, TextField } from './ui';

interface Settings {
  name: string;
  sender_domain_id: string;
  tracking_domain_id: string;
  from_email: string;
  from_name: string;
}

const settingsOf = (p: Project | undefined): Settings => ({
  name: p?.name ?? '',
  sender_domain_id: p?.sender_domain_id ?? '',
  tracking_domain_id: p?.tracking_domain_id ?? '',
  from_email: p?.from_email ?? '',
  from_name: p?.from_name ?? '',
});

/** What the API takes: an empty field is "not set" (null), never an empty string it would refuse. */
const requestOf = (s: Settings): CreateProjectRequest => ({
  name: s.name.trim(),
  sender_domain_id: s.sender_domain_id || null,
  tracking_domain_id: s.tracking_domain_id || null,
  from_email: s.from_email.trim() || null,
  from_name: s.from_name.trim() || null,
});

function ProjectForm({
  project,
  submitLabel,
  pending,
  onSubmit,
}: {
  project?: Project;
  submitLabel: string;
  pending: boolean;
  onSubmit: (request: CreateProjectRequest) => void;
}) {
  const senderDomains = useSenderDomains();
  const trackingDomains = useTrackingDomains();
  const [settings, setSettings] = useState(() => settingsOf(project));
  const set = (name: keyof Settings) => (value: string) => setSettings((s) => ({ ...s, [name]: value }));
  const sender = senderDomains.data?.data.find((d) => d.id === settings.sender_domain_id);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(requestOf(settings));
  };
  return (
    <form onSubmit={submit} className="grid gap-3 md:grid-cols-2">
      <TextField label="Project name" value={settings.name} onValue={set('name')} required maxLength={200} />
      <SelectField label="Sender domain" value={settings.sender_domain_id} onValue={set('sender_domain_id')}>
        <option value="">None yet</option>
        {senderDomains.data?.data.map((d) => (
          <option key={d.id} value={d.id}>
            {d.domain} ({d.status})
          </option>
        ))}
      </SelectField>
      <TextField
        label="From address"
        type="email"
        value={settings.from_email}
        onValue={set('from_email')}
        placeholder={sender ? `hello@${sender.domain}` : 'hello@mail.example.com'}
        hint={sender ? `An address at ${sender.domain} (or a subdomain).` : 'On the sender domain.'}
      />
      <TextField label="From name" value={settings.from_name} onValue={set('from_name')} maxLength={200} placeholder="Acme" />
      <SelectField label="Tracking domain" value={settings.tracking_domain_id} onValue={set('tracking_domain_id')}>
        <option value="">The Postbus host</option>
        {trackingDomains.data?.data.map((d) => (
          <option key={d.id} value={d.id}>
            {d.domain} ({d.status})
          </option>
        ))}
      </SelectField>
      <div className="flex items-end">
        <SubmitButton pending={pending} pendingLabel="Saving…">
          {submitLabel}
        </SubmitButton>
      </div>
    </form>
  );
}

/** Projects: pick the one being set up, change its sender settings, or create one. */
export function ProjectSection({ id, projectId, onPick }: { id: string; projectId: string | undefined; onPick: (id: string) => void }) {
  const queryClient = useQueryClient();
  const projects = useProjects();
  const senderDomains = useSenderDomains();
  const [creating, setCreating] = useState(false);
  const current = projects.data?.data.find((p) => p.id === projectId);
  const create = useMutation({
    mutationFn: (request: CreateProjectRequest) => api<Project>('/projects', { method: 'POST', body: request }),
    onSuccess: (project) => {
      setCreating(false);
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      onPick(project.id);
    },
  });
  const update = useMutation({
    mutationFn: (request: CreateProjectRequest) => api<Project>(`/projects/${projectId}`, { method: 'PATCH', body: request }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
  });
  const senderOf = (p: Project) => senderDomains.data?.data.find((d) => d.id === p.sender_domain_id);
  return (
    <Card
      title={<span id={id}>3. Projects</span>}
      className="scroll-mt-4"
      actions={!creating && <Button onClick={() => setCreating(true)}>New project</Button>}
    >
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">
        A project holds users, templates and emails, and names the verified sender domain its mail comes from.
      </p>
      {projects.isPending ? (
        <Loading what="projects" />
      ) : projects.isError ? (
        <ErrorState error={projects.error} retry={() => void projects.refetch()} />
      ) : projects.data.data.length === 0 ? (
        <Empty>No project yet.</Empty>
      ) : (
        <ul aria-label="Projects" className="divide-y divide-slate-100 dark:divide-slate-800">
          {projects.data.data.map((p) => {
            const sender = senderOf(p);
            return (
              <li key={p.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                <span className="font-medium">{p.name}</span>
                {p.id === projectId && <Badge tone="blue">being set up</Badge>}
                <span className="text-xs text-slate-500 dark:text-slate-400">
                  {sender ? `sends from ${sender.domain} (${sender.status})` : 'no sender domain'}
                  {p.from_email ? ` as ${p.from_email}` : ''}
                </span>
                {p.id !== projectId && (
                  <Button className="ml-auto" onClick={() => onPick(p.id)}>
                    Set up this project
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {current && !creating && (
        <div className="mt-4 border-t border-slate-100 pt-4 dark:border-slate-800">
          <h3 className="mb-2 text-sm font-semibold">Settings of {current.name}</h3>
          <ProjectForm
            // A saved change (a new updated_at) starts the form afresh from what the API stored.
            key={`${current.id}-${current.updated_at}`}
            project={current}
            submitLabel="Save project"
            pending={update.isPending}
            onSubmit={(r) => update.mutate(r)}
          />
          {update.isError && (
            <div className="mt-2">
              <ErrorState error={update.error} />
            </div>
          )}
          {update.isSuccess && !update.isPending && (
            <p role="status" className="mt-2 text-sm text-emerald-700 dark:text-emerald-400">
              Saved.
            </p>
          )}
        </div>
      )}
      {(creating || projects.data?.data.length === 0) && (
        <div className="mt-4 border-t border-slate-100 pt-4 dark:border-slate-800">
          <div className="mb-2 flex items-center justify-between">
            <h3 className="text-sm font-semibold">New project</h3>
            {creating && <Button onClick={() => setCreating(false)}>Cancel</Button>}
          </div>
          <ProjectForm submitLabel="Create project" pending={create.isPending} onSubmit={(r) => create.mutate(r)} />
          {create.isError && (
            <div className="mt-2">
              <ErrorState error={create.error} />
            </div>
          )}
        </div>
      )}
    </Card>
  );
}
