import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { CreateWebhookRequest, Delivery, DeliveryList, UpdateWebhookRequest, Webhook, WebhookWithSecret } from '../api/types';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { Badge, Button, Card, ChoiceField, Empty, ErrorState, Loading, Time, type BadgeTone } from '../components/ui';
import { SecretOnce, WebhookForm } from '../components/webhook-form';
import { useProjects } from '../layout/layout';
import { describeWebhookFormat, WEBHOOK_FORMAT_TEXTS } from '../lib/webhook-formats';

const POLL_MS = 2_000;
/** How long the log keeps asking for a delivery just scheduled (a test event, a retry) to show its attempt. */
const WATCH_MS = 60_000;

/** A delivery the panel just scheduled: the log polls until it has more than `attempts` attempts. */
export interface WatchedDelivery {
  id: string;
  attempts: number;
  until: number;
}

const DELIVERY_TONES: Record<Delivery['status'], BadgeTone> = { pending: 'blue', succeeded: 'green', failed: 'red' };
const OUTCOME_TONES: Record<string, BadgeTone> = { succeeded: 'green', retrying: 'amber', failed: 'red' };
const ATTEMPT_COLUMNS = ['#', 'At', 'Status code', 'Duration', 'Outcome', 'Response'];

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0)
    return <p className="text-sm text-slate-500 dark:text-slate-400">No attempt yet: the first one is on its way.</p>;
  const last = delivery.attempts[delivery.attempts.length - 1];
  return (
    <div>
      <DataTable caption={`Attempts of ${delivery.id}`} columns={ATTEMPT_COLUMNS} density="compact">
        {delivery.attempts.map((a) => (
          <tr key={a.attempt} className="border-t border-slate-100 align-top dark:border-slate-800">
            <td className="py-1 pr-3">{a.attempt}</td>
            <td className="py-1 pr-3 whitespace-nowrap">
              <Time at={a.at} />
            </td>
            <td className="py-1 pr-3 font-mono">{a.status_code ?? '—'}</td>
            <td className="py-1 pr-3 whitespace-nowrap">{a.latency_ms} ms</td>
            <td className="py-1 pr-3">
              <Badge tone={OUTCOME_TONES[a.outcome] ?? 'gray'}>{a.outcome}</Badge>
            </td>
            <td className="max-w-[20rem] py-1 font-mono text-xs break-words">{a.error ?? a.response ?? ''}</td>
          </tr>
        ))}
      </DataTable>
      {delivery.status === 'pending' && last?.outcome === 'retrying' && (
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          Next retry: {last.next_attempt_at ? <Time at={last.next_attempt_at} /> : 'scheduled by the dispatcher'}
        </p>
      )}
    </div>
  );
}

function DeliveryLog({
  webhookId,
  watched,
  watch,
}: {
  webhookId: string;
  watched: WatchedDelivery | null;
  watch: (delivery: WatchedDelivery) => void;
}) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const filters = { ...(status ? { status } : {}), ...(eventType ? { event_type: eventType } : {}) };
  const deliveries = useInfiniteQuery({
    queryKey: queryKeys.webhooks.deliveries(webhookId, filters),
    queryFn: ({ pageParam }) =>
      api<DeliveryList>(`/webhooks/${webhookId}/deliveries`, { query: { ...filters, limit: 20, cursor: pageParam } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Poll only while a delivery is being tried, or one just scheduled has not shown its attempt yet.
    refetchInterval: (query) => {
      const shown = query.state.data?.pages.flatMap((p) => p.data) ?? [];
      if (shown.some((d) => d.status === 'pending')) return POLL_MS;
      const awaited = watched && Date.now() < watched.until ? shown.find((d) => d.id === watched.id) : undefined;
      return watched && Date.now() < watched.until && (!awaited || awaited.attempts.length <= watched.attempts) ? POLL_MS : false;
    },
  });
  const retry = useMutation({
    mutationFn: (delivery: Delivery) => api(`/webhooks/${webhookId}/deliveries/${delivery.id}/retry`, { method: 'POST' }),
    onSuccess: (_answer, delivery) => {
      watch({ id: delivery.id, attempts: delivery.attempts.length, until: Date.now() + WATCH_MS });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', webhookId, 'deliveries'] });
    },
  });
  const list = deliveries.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card title="Deliveries">
      <div className="mb-4 grid gap-3 sm:grid-cols-2 md:max-w-xl">
        <ChoiceField label="Status" value={status} onValue={setStatus} any="All statuses" choices={DELIVERY_STATUSES} />
        <ChoiceField
          label="Event type"
          value={eventType}
          onValue={setEventType}
          any="All event types"
          choices={[...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE]}
        />
      </div>
      {retry.isError && <ErrorState error={retry.error} />}
      {deliveries.isPending ? (
        <Loading what="deliveries" />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} retry={() => void deliveries.refetch()} />
      ) : list.length === 0 ? (
        <Empty>{status || eventType ? 'No delivery matches these filters.' : 'No deliveries yet. Send a test event to see one.'}</Empty>
      ) : (
        <ul className="space-y-3">
          {list.map((d) => (
            <li
              key={d.id}
              aria-label={`Delivery ${d.event_type} ${d.status}`}
              className="rounded-md border border-slate-200 p-3 dark:border-slate-700"
            >
              <div className="mb-2 flex flex-wrap items-center gap-2">
                <Badge tone={DELIVERY_TONES[d.status]}>{d.status}</Badge>
                <span className="font-mono text-sm">{d.event_type}</span>
                <span className="text-xs text-slate-500 dark:text-slate-400">
                  <Time at={d.created_at} /> · {d.attempts.length} attempt{d.attempts.length === 1 ? '' : 's'}
                </span>
                {d.status === 'failed' && (
                  <Button className="ml-auto" onClick={() => retry.mutate(d)} disabled={retry.isPending && retry.variables?.id === d.id}>
                    Retry
                  </Button>
                )}
              </div>
              <Attempts delivery={d} />
              <details className="mt-2 text-xs">
                <summary className="cursor-pointer text-slate-500 dark:text-slate-400">Payload · {d.id}</summary>
                <pre className="mt-1 overflow-x-auto rounded bg-slate-100 p-2 dark:bg-slate-800">{JSON.stringify(d.payload, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ul>
      )}
      {deliveries.hasNextPage && (
        <Button className="mt-3" onClick={() => void deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
          Load older deliveries
        </Button>
      )}
    </Card>
  );
}

export function WebhookDetailScreen() {
  const { webhookId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const projects = useProjects();
  const webhook = useQuery({ queryKey: queryKeys.webhooks.one(webhookId), queryFn: () => api<Webhook>(`/webhooks/${webhookId}`) });
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [watched, setWatched] = useState<WatchedDelivery | null>(null);
  const changed = (w: Webhook) => {
    queryClient.setQueryData(queryKeys.webhooks.one(webhookId), w);
    void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all, exact: true });
  };
  const update = useMutation({
    mutationFn: (patch: UpdateWebhookRequest) => api<Webhook>(`/webhooks/${webhookId}`, { method: 'PATCH', body: patch }),
    onSuccess: (w) => {
      changed(w);
      setEditing(false);
    },
  });
  const rotate = useMutation({
    mutationFn: () => api<WebhookWithSecret>(`/webhooks/${webhookId}/rotate-secret`, { method: 'POST' }),
    onSuccess: (w) => {
      setConfirm(null);
      setSecret(w.secret);
    },
  });
  const remove = useMutation({
    mutationFn: () => api(`/webhooks/${webhookId}`, { method: 'DELETE' }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all });
      void navigate('/webhooks');
    },
  });
  const test = useMutation({
    mutationFn: () => api<{ delivery_id: string }>(`/webhooks/${webhookId}/test`, { method: 'POST' }),
    onSuccess: ({ delivery_id }) => {
      setNotice('Test event scheduled: it shows in the deliveries below.');
      setWatched({ id: delivery_id, attempts: 0, until: Date.now() + WATCH_MS });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', webhookId, 'deliveries'] });
    },
  });

  if (webhook.isPending) return <Loading what="the webhook" />;
  if (webhook.isError) return <ErrorState error={webhook.error} retry={() => void webhook.refetch()} />;
  const w = webhook.data;
  const error = update.error ?? test.error;
  return (
    <div className="space-y-4">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link to="/webhooks" className="text-indigo-600 hover:underline dark:text-indigo-400">
          Webhooks
        </Link>{' '}
        / endpoint
      </nav>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="min-w-0 text-2xl font-semibold break-all">{w.url}</h1>
        <Badge tone={w.enabled ? 'green' : 'gray'}>{w.enabled ? 'enabled' : 'disabled'}</Badge>
      </div>
      {w.disabled_reason && <p className="text-sm text-amber-700 dark:text-amber-300">Disabled by the service: {w.disabled_reason}</p>}
      <Card
        title="Endpoint"
        actions={
          <>
            <Button onClick={() => setEditing((e) => !e)}>{editing ? 'Cancel edit' : 'Edit'}</Button>
            <Button onClick={() => update.mutate({ enabled: !w.enabled })} disabled={update.isPending}>
              {w.enabled ? 'Disable' : 'Enable'}
            </Button>
            <Button onClick={() => test.mutate()} disabled={test.isPending}>
              Send test event
            </Button>
            <Button onClick={() => setConfirm('rotate')}>Rotate secret</Button>
            <Button tone="danger" onClick={() => setConfirm('delete')}>
              Delete
            </Button>
          </>
        }
      >
        {secret && <SecretOnce secret={secret} onDismiss={() => setSecret(null)} />}
        {notice && (
          <p role="status" className="mb-2 text-sm text-emerald-700 dark:text-emerald-300">
            {notice}
          </p>
        )}
        {error && <ErrorState error={error} />}
        {editing ? (
          <WebhookForm
            initial={w}
            projects={projects.data?.data ?? []}
            submitLabel="Save changes"
            pending={update.isPending}
            onSubmit={(settings: CreateWebhookRequest) => update.mutate(settings)}
          />
        ) : (
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-500 dark:text-slate-400">Events</dt>
            <dd className="font-mono text-xs break-words">{w.events.includes('*') ? 'all events (*)' : w.events.join(', ')}</dd>
            <dt className="text-slate-500 dark:text-slate-400">Format</dt>
            <dd>
              <p>{describeWebhookFormat(w.format)}</p>
              <p className="text-xs text-slate-500 dark:text-slate-400">{WEBHOOK_FORMAT_TEXTS[w.format].verify}</p>
            </dd>
            <dt className="text-slate-500 dark:text-slate-400">Project</dt>
            <dd>{w.project_id ? (projects.data?.data.find((p) => p.id === w.project_id)?.name ?? w.project_id) : 'All projects'}</dd>
            <dt className="text-slate-500 dark:text-slate-400">Description</dt>
            <dd>{w.description ?? '—'}</dd>
            <dt className="text-slate-500 dark:text-slate-400">Created</dt>
            <dd>
              <Time at={w.created_at} />
            </dd>
            <dt className="text-slate-500 dark:text-slate-400">Id</dt>
            <dd className="font-mono text-xs">{w.id}</dd>
          </dl>
        )}
      </Card>
      <DeliveryLog webhookId={webhookId} watched={watched} watch={setWatched} />
      <ConfirmDialog
        open={confirm === 'rotate'}
        onOpenChange={(open) => setConfirm(open ? 'rotate' : null)}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        tone="primary"
        onConfirm={() => rotate.mutate()}
        pending={rotate.isPending}
        error={rotate.error}
      >
        <p>
          A new secret is made and shown once. The previous one keeps signing alongside it for a while, so your receiver can switch without
          losing events.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'delete'}
        onOpenChange={(open) => setConfirm(open ? 'delete' : null)}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
        error={remove.error}
      >
        <p>No more events go to {w.url}, and its delivery log is no longer shown.</p>
      </ConfirmDialog>
    </div>
  );
}
