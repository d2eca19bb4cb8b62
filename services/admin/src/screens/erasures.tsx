import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { ERASURE_STATUSES, type ErasureList } from '../api/types';
import { Badge, Button, Card, ChoiceField, Empty, ErrorState, Loading, SelectField, Time, type BadgeTone } from '../components/ui';
import { useProjects } from '../layout/layout';

const STATUS_TONES: Record<string, BadgeTone> = { queued: 'amber', executing: 'blue', completed: 'green' };
/** While a request is queued or executing, its state changes by itself: ask again this often (tab visible only). */
const POLL_MS = 5_000;

/** The erasure queue and audit: each request's state, when it is due, and which services confirmed. */
export function ErasuresScreen() {
  const projects = useProjects();
  const [status, setStatus] = useState('');
  const [projectId, setProjectId] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const filters = { status: status || undefined, project_id: projectId || undefined, cursor };
  const erasures = useQuery({
    queryKey: queryKeys.erasures(filters),
    queryFn: () => api<ErasureList>('/erasures', { query: { ...filters, limit: 25 } }),
    refetchInterval: (q) => (q.state.data?.data.some((e) => e.status !== 'completed') ? POLL_MS : false),
    placeholderData: (previous) => previous,
  });
  const projectName = (id: string) => projects.data?.data.find((p) => p.id === id)?.name ?? id;
  const filter = (apply: () => void) => {
    apply();
    setCursors([]);
  };
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Erasures</h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Every erase request: the user gets no email from the moment it is made, and is erased at <em>erase at</em> by every service, which
        each confirm. The audit keeps no personal data (only a keyed hash of the address).
      </p>
      <Card>
        <div className="grid gap-3 sm:grid-cols-2">
          <ChoiceField
            label="State"
            value={status}
            onChange={(e) => filter(() => setStatus(e.target.value))}
            any="Any state"
            choices={ERASURE_STATUSES}
          />
          <SelectField label="Project" value={projectId} onChange={(e) => filter(() => setProjectId(e.target.value))}>
            <option value="">All projects</option>
            {projects.data?.data.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </SelectField>
        </div>
      </Card>
      <Card title="Requests">
        {erasures.isPending ? (
          <Loading what="erasures" />
        ) : erasures.isError ? (
          <ErrorState error={erasures.error} retry={() => void erasures.refetch()} />
        ) : erasures.data.data.length === 0 ? (
          <Empty>{status || projectId ? 'No erasure matches these filters.' : 'No erasure requested yet.'}</Empty>
        ) : (
          <ul aria-label="Erasure requests" className="divide-y divide-slate-100 dark:divide-slate-800">
            {erasures.data.data.map((e) => (
              <li key={e.id} aria-label={`Erasure ${e.id} ${e.status}`} className="space-y-1 py-3 text-sm">
                <div className="flex flex-wrap items-center gap-2">
                  <code className="font-mono text-xs">{e.id}</code>
                  <Badge tone={STATUS_TONES[e.status] ?? 'gray'}>{e.status}</Badge>
                  <span className="text-xs text-slate-500 dark:text-slate-400">{projectName(e.project_id)}</span>
                </div>
                <dl className="grid max-w-2xl grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-xs sm:grid-cols-[max-content_1fr_max-content_1fr]">
                  <dt className="text-slate-500 dark:text-slate-400">Requested</dt>
                  <dd>
                    <Time at={e.requested_at} />
                  </dd>
                  <dt className="text-slate-500 dark:text-slate-400">Erase at</dt>
                  <dd>
                    <Time at={e.erase_at} />
                  </dd>
                  <dt className="text-slate-500 dark:text-slate-400">Executed</dt>
                  <dd>{e.executed_at ? <Time at={e.executed_at} /> : '—'}</dd>
                  <dt className="text-slate-500 dark:text-slate-400">Completed</dt>
                  <dd>{e.completed_at ? <Time at={e.completed_at} /> : '—'}</dd>
                </dl>
                <p className="flex flex-wrap items-center gap-1 text-xs">
                  <span className="text-slate-500 dark:text-slate-400">Confirmed by:</span>
                  {e.confirmed_by.length === 0 ? (
                    <span>none yet</span>
                  ) : (
                    e.confirmed_by.map((s) => (
                      <Badge key={s} tone="green">
                        {s}
                      </Badge>
                    ))
                  )}
                  {e.waiting_for.length > 0 && (
                    <>
                      <span className="ml-2 text-slate-500 dark:text-slate-400">Waiting for:</span>
                      {e.waiting_for.map((s) => (
                        <Badge key={s} tone="amber">
                          {s}
                        </Badge>
                      ))}
                    </>
                  )}
                </p>
              </li>
            ))}
          </ul>
        )}
        {erasures.data && (
          <nav aria-label="Pages" className="mt-3 flex items-center justify-between gap-2">
            <Button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </Button>
            <Button
              disabled={!erasures.data.next_cursor}
              onClick={() => erasures.data.next_cursor && setCursors([...cursors, erasures.data.next_cursor])}
            >
              Next
            </Button>
          </nav>
        )}
      </Card>
    </div>
  );
}
