import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useEmails, useSenderDomains, useTemplates } from '../api/catalog';
import { queryKeys } from '../api/query-keys';
import type { CreateEmailRequest, TransactionalEmail } from '../api/types';
import { useProjects } from '../layout/layout';
import { CopyButton } from './copy-button';
import { Badge, Button, Card, Empty, ErrorState, Loading, SelectField, SubmitButton, TextField } from './ui';

const EMAIL_KEY = '^[a-z0-9][a-z0-9_\\-]{0,63}$';

/** The call a backend makes to send this email (the panel never holds the key: the reader fills it in). */
const sendCommand = (projectId: string, key: string) =>
  `curl -u "$POSTBUS_CLIENT_ID:$POSTBUS_API_KEY" -H 'Content-Type: application/json' \\\n  ${window.location.origin}/v1/projects/${projectId}/emails/${key}/send \\\n  -d '{"user": {"email": "ada@example.com", "name": "Ada"}, "data": {}}'`;

function EmailForm({ projectId, onCreated }: { projectId: string; onCreated: () => void }) {
  const queryClient = useQueryClient();
  const templates = useTemplates(projectId);
  const senderDomains = useSenderDomains();
  const projects = useProjects();
  const project = projects.data?.data.find((p) => p.id === projectId);
  const sender = senderDomains.data?.data.find((d) => d.id === project?.sender_domain_id);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [fromEmail, setFromEmail] = useState('');
  const [trackOpens, setTrackOpens] = useState(false);
  const [trackClicks, setTrackClicks] = useState(false);
  const [sendToUnsubscribed, setSendToUnsubscribed] = useState(false);
  const create = useMutation({
    mutationFn: (request: CreateEmailRequest) =>
      api<TransactionalEmail>(`/projects/${projectId}/emails`, { method: 'POST', body: request }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.emails(projectId) });
      onCreated();
    },
  });
  const chosenTemplate = templateId || templates.data?.data[0]?.id || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      key: key.trim(),
      name: name.trim() || key.trim(),
      template_id: chosenTemplate,
      track_opens: trackOpens,
      track_clicks: trackClicks,
      send_to_unsubscribed: sendToUnsubscribed,
      ...(fromEmail.trim() ? { from_email: fromEmail.trim() } : {}),
    });
  };
  return (
    <form onSubmit={submit} className="grid gap-3 md:grid-cols-2">
      <TextField
        label="Key"
        value={key}
        onValue={setKey}
        required
        pattern={EMAIL_KEY}
        placeholder="welcome"
        hint="Lower-case letters, digits, - and _: your backend sends the email by this key."
      />
      <TextField label="Name" value={name} onValue={setName} maxLength={200} placeholder="Welcome email" />
      <SelectField label="Template" value={chosenTemplate} onValue={setTemplateId} required>
        {templates.data?.data.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </SelectField>
      <TextField
        label="From address (optional)"
        type="email"
        value={fromEmail}
        onValue={setFromEmail}
        placeholder={project?.from_email ?? (sender ? `hello@${sender.domain}` : '')}
        hint={
          sender
            ? `Overrides the project's; must be at ${sender.domain}${sender.status === 'verified' ? '' : ' (not verified yet: mail cannot go out)'}.`
            : 'The project has no sender domain yet: set it in Projects above.'
        }
      />
      <fieldset className="flex flex-wrap gap-4 text-sm md:col-span-2">
        <legend className="sr-only">Options</legend>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={trackOpens} onChange={(e) => setTrackOpens(e.target.checked)} /> Track opens
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={trackClicks} onChange={(e) => setTrackClicks(e.target.checked)} /> Track clicks
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={sendToUnsubscribed} onChange={(e) => setSendToUnsubscribed(e.target.checked)} /> Send to
          unsubscribed users too (e.g. password resets)
        </label>
      </fieldset>
      <div className="md:col-span-2">
        <SubmitButton pending={create.isPending} pendingLabel="Creating…" disabled={!chosenTemplate}>
          Create email
        </SubmitButton>
      </div>
      {create.isError && (
        <div className="md:col-span-2">
          <ErrorState error={create.error} />
        </div>
      )}
    </form>
  );
}

/** Transactional emails: a key bound to a template, which a backend sends by that key. */
export function EmailSection({ id, projectId, ready }: { id: string; projectId: string | undefined; ready: boolean }) {
  const emails = useEmails(projectId);
  const templates = useTemplates(projectId);
  const [creating, setCreating] = useState(false);
  // An email sends a template: without one, the section says so instead of offering an empty form.
  const noTemplate = templates.data?.data.length === 0;
  const showForm = !noTemplate && (creating || emails.data?.data.length === 0);
  return (
    <Card
      title={<span id={id}>5. Transactional emails</span>}
      className="scroll-mt-4"
      actions={projectId && !showForm && !noTemplate && <Button onClick={() => setCreating(true)}>New email</Button>}
    >
      {!projectId ? (
        <Empty>Create a project first.</Empty>
      ) : emails.isPending || templates.isPending ? (
        <Loading what="emails" />
      ) : emails.isError ? (
        <ErrorState error={emails.error} retry={() => void emails.refetch()} />
      ) : (
        <>
          {emails.data.data.length === 0 ? (
            <Empty>{noTemplate ? 'No email yet. Create a template first: an email sends one.' : 'No email yet.'}</Empty>
          ) : (
            <ul aria-label="Transactional emails" className="divide-y divide-slate-100 dark:divide-slate-800">
              {emails.data.data.map((email) => {
                const command = sendCommand(projectId, email.key);
                return (
                  <li key={email.id} className="space-y-2 py-3">
                    <div className="flex flex-wrap items-center gap-2">
                      <code className="font-mono text-sm font-semibold">{email.key}</code>
                      <span className="text-sm">{email.name}</span>
                      <span className="text-xs text-slate-500 dark:text-slate-400">
                        template {templates.data?.data.find((t) => t.id === email.template_id)?.name ?? email.template_id}
                        {email.from_email ? ` · from ${email.from_email}` : ''}
                      </span>
                      {email.track_opens && <Badge tone="gray">opens tracked</Badge>}
                      {email.track_clicks && <Badge tone="gray">clicks tracked</Badge>}
                      {email.send_to_unsubscribed && <Badge tone="amber">sent to unsubscribed</Badge>}
                      {ready && <Badge tone="green">ready to send</Badge>}
                    </div>
                    <div className="flex items-start gap-2">
                      <pre
                        aria-label={`Send ${email.key} with curl`}
                        className="min-w-0 flex-1 overflow-x-auto rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-800"
                      >
                        {command}
                      </pre>
                      <CopyButton value={command} label={`Copy the send command of ${email.key}`} />
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
          {showForm && (
            <div className="mt-4 border-t border-slate-100 pt-4 dark:border-slate-800">
              <div className="mb-2 flex items-center justify-between">
                <h3 className="text-sm font-semibold">New transactional email</h3>
                {creating && <Button onClick={() => setCreating(false)}>Cancel</Button>}
              </div>
              <EmailForm projectId={projectId} onCreated={() => setCreating(false)} />
            </div>
          )}
        </>
      )}
    </Card>
  );
}
