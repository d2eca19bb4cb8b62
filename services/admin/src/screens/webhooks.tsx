import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { CreateWebhookRequest, WebhookList, WebhookWithSecret } from '../api/types';
import { SecretOnce, WebhookForm } from '../components/webhook-form';
import { Badge, Button, Card, Empty, ErrorState, Loading, Time } from '../components/ui';
import { useProjects } from '../layout/layout';
import { WEBHOOK_FORMAT_TEXTS } from '../lib/webhook-formats';

export function WebhooksScreen() {
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: queryKeys.webhooks.all, queryFn: () => api<WebhookList>('/webhooks') });
  const projects = useProjects();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const create = useMutation({
    mutationFn: (settings: CreateWebhookRequest) => api<WebhookWithSecret>('/webhooks', { method: 'POST', body: settings }),
    onSuccess: (webhook) => {
      setCreated(webhook);
      setCreating(false);
      const { secret: _secret, ...shown } = webhook;
      queryClient.setQueryData<WebhookList>(queryKeys.webhooks.all, (list) => (list ? { data: [...list.data, shown] } : list));
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all });
    },
  });
  const projectName = (id: string | null) => (id ? (projects.data?.data.find((p) => p.id === id)?.name ?? id) : 'All projects');
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">Webhooks</h1>
        {!creating && (
          <Button tone="primary" onClick={() => setCreating(true)}>
            Add endpoint
          </Button>
        )}
      </div>
      {created && (
        <Card
          title={
            <>
              Endpoint created:{' '}
              <Link className="text-indigo-600 underline dark:text-indigo-400" to={`/webhooks/${created.id}`}>
                {created.url}
              </Link>
            </>
          }
        >
          <SecretOnce secret={created.secret} onDismiss={() => setCreated(null)} />
        </Card>
      )}
      {creating && (
        <Card title="New endpoint" actions={<Button onClick={() => setCreating(false)}>Cancel</Button>}>
          <WebhookForm
            projects={projects.data?.data ?? []}
            submitLabel="Create endpoint"
            pending={create.isPending}
            onSubmit={(s) => create.mutate(s)}
          />
          {create.isError && (
            <div className="mt-3">
              <ErrorState error={create.error} />
            </div>
          )}
        </Card>
      )}
      <Card title="Endpoints">
        {webhooks.isPending ? (
          <Loading what="webhooks" />
        ) : webhooks.isError ? (
          <ErrorState error={webhooks.error} retry={() => void webhooks.refetch()} />
        ) : webhooks.data.data.length === 0 ? (
          <Empty>No webhook endpoints yet. Add one to receive delivery, engagement and user events as signed HTTP POSTs.</Empty>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {webhooks.data.data.map((w) => (
              <li key={w.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-3">
                <Link
                  to={`/webhooks/${w.id}`}
                  className="min-w-0 flex-1 truncate font-medium text-indigo-600 hover:underline dark:text-indigo-400"
                >
                  {w.url}
                </Link>
                <Badge tone={w.enabled ? 'green' : 'gray'}>{w.enabled ? 'enabled' : 'disabled'}</Badge>
                <span className="text-xs text-slate-500 dark:text-slate-400">
                  {w.events.includes('*') ? 'all events' : `${w.events.length} event type${w.events.length === 1 ? '' : 's'}`} ·{' '}
                  {WEBHOOK_FORMAT_TEXTS[w.format].name} format · {projectName(w.project_id)} · created <Time at={w.created_at} />
                </span>
                {w.description && <p className="w-full text-sm text-slate-600 dark:text-slate-300">{w.description}</p>}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
