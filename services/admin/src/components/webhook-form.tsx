import { useState, type FormEvent } from 'react';
import type { CreateWebhookRequest, Project, Webhook, WebhookFormat } from '../api/types';
import { WEBHOOK_EVENT_TYPES } from '../api/types';
import { describeWebhookFormat, WEBHOOK_FORMAT_CHOICES, WEBHOOK_FORMAT_TEXTS } from '../lib/webhook-formats';
import { Button, SelectField, SubmitButton, TextField } from './ui';

/** Create or edit an endpoint: URL, the events it gets (or all), the format it gets them in, an optional project and description. */
export function WebhookForm({
  initial,
  projects,
  submitLabel,
  pending,
  onSubmit,
}: {
  initial?: Webhook;
  projects: Project[];
  submitLabel: string;
  pending: boolean;
  onSubmit: (settings: CreateWebhookRequest) => void;
}) {
  const [url, setUrl] = useState(initial?.url ?? '');
  const [allEvents, setAllEvents] = useState(initial ? initial.events.includes('*') : true);
  const [events, setEvents] = useState<string[]>(initial && !initial.events.includes('*') ? initial.events : []);
  const [projectId, setProjectId] = useState(initial?.project_id ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [format, setFormat] = useState<WebhookFormat>(initial?.format ?? 'standard');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({
      url: url.trim(),
      events: (allEvents ? ['*'] : events) as CreateWebhookRequest['events'],
      project_id: projectId || null,
      description: description.trim() || null,
      format,
    });
  };
  const toggle = (type: string) => setEvents((now) => (now.includes(type) ? now.filter((t) => t !== type) : [...now, type]));
  return (
    <form onSubmit={submit} className="grid gap-4 md:grid-cols-2">
      <TextField label="Endpoint URL" type="url" required placeholder="https://example.com/webhooks/postbus" value={url} onValue={setUrl} />
      <TextField label="Description" value={description} maxLength={256} onValue={setDescription} />
      <SelectField label="Project" value={projectId} onValue={setProjectId}>
        <option value="">All projects</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Format"
        value={format}
        hint={WEBHOOK_FORMAT_TEXTS[format].verify}
        onValue={(value) => setFormat(value as WebhookFormat)}
      >
        {WEBHOOK_FORMAT_CHOICES.map((choice) => (
          <option key={choice} value={choice}>
            {describeWebhookFormat(choice)}
          </option>
        ))}
      </SelectField>
      <fieldset className="md:col-span-2">
        <legend className="mb-1 text-sm font-medium">Events</legend>
        <label className="mb-2 flex items-center gap-2 text-sm">
          <input type="checkbox" checked={allEvents} onChange={(e) => setAllEvents(e.target.checked)} />
          All events
        </label>
        {!allEvents && (
          <div className="grid grid-cols-1 gap-1 sm:grid-cols-2 lg:grid-cols-3">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} className="flex items-center gap-2 font-mono text-xs">
                <input type="checkbox" checked={events.includes(type)} onChange={() => toggle(type)} />
                {type}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div className="md:col-span-2">
        <SubmitButton pending={pending} pendingLabel="Saving…" disabled={!allEvents && events.length === 0}>
          {submitLabel}
        </SubmitButton>
      </div>
    </form>
  );
}

/** A signing secret, shown once: copy it now, it cannot be read again. */
export function SecretOnce({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <div
      role="status"
      className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
    >
      <p className="font-medium">Signing secret — shown only this once. Store it where your receiver verifies signatures.</p>
      <p className="mt-2 flex flex-wrap items-center gap-2">
        <code aria-label="Signing secret" className="rounded bg-white px-2 py-1 font-mono text-xs break-all dark:bg-slate-900">
          {secret}
        </code>
        <Button onClick={() => void navigator.clipboard?.writeText(secret)}>Copy</Button>
        <Button onClick={onDismiss}>I stored it</Button>
      </p>
    </div>
  );
}
