import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import {
  SUPPRESSION_REASONS,
  type CreateSuppressionRequest,
  type Suppression,
  type SuppressionList,
  type SuppressionReason,
} from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { CursorPage, useCursorPages } from '../components/cursor-pages';
import { DataTable } from '../components/data-table';
import { reasonsOf } from '../components/suppression-reasons';
import { UserLink } from '../components/user-link';
import {
  Badge,
  Button,
  Card,
  ChoiceField,
  ErrorState,
  FilterForm,
  RefreshButton,
  SubmitButton,
  TextField,
  Time,
  type BadgeTone,
} from '../components/ui';

const SUPPRESSIONS_PER_PAGE = 25;
const SUPPRESSION_COLUMNS = ['Address', 'Reason', 'Since', 'Caused by'];
/** How long an added or removed address is awaited in the list (the mailer applies it through Kafka), and how often it is asked. */
const APPLY_TIMEOUT_MS = 20_000;
const APPLY_POLL_MS = 500;

export const REASON_TONES: Record<SuppressionReason, BadgeTone> = {
  hard_bounce: 'red',
  soft_bounce_limit: 'amber',
  complaint: 'red',
  unsubscribed: 'amber',
  manual: 'gray',
};

/** What each reason means, as the API's contract says it (shown on hover and under the filter). */
export const REASON_DESCRIPTIONS: Record<SuppressionReason, string> = {
  hard_bounce: 'its mail system said it takes no mail',
  soft_bounce_limit: 'too many of its messages soft-bounced',
  complaint: 'its owner reported a message as spam',
  unsubscribed: 'the recipient unsubscribed',
  manual: 'suppressed by hand (here or through the API)',
};

/** What to weigh before removing a suppression of each reason (the API refuses what it may not lift, and says why). */
const REMOVAL_CAVEATS: Partial<Record<SuppressionReason, string>> = {
  hard_bounce: 'It bounced: remove it only if you know the mailbox takes mail now.',
  soft_bounce_limit: 'Its messages kept bouncing: remove it only if you know the mailbox takes mail now.',
  complaint: 'Its owner reported a message as spam.',
  unsubscribed: 'The recipient unsubscribed: remove it only if they asked for email again.',
};

/** What to weigh before removing a suppression: its strongest reason's caveat (a complaint among its reasons is refused). */
const removalCaveat = (suppression: Suppression): string | undefined =>
  reasonsOf(suppression)
    .map((reason) => REMOVAL_CAVEATS[reason])
    .find((caveat) => caveat !== undefined);

const isReason = (value: string | null): value is SuppressionReason =>
  value !== null && (SUPPRESSION_REASONS as readonly string[]).includes(value);

interface SuppressionFilters {
  email?: string;
  reason?: SuppressionReason;
}

function filtersFromSearch(search: URLSearchParams): SuppressionFilters {
  const email = search.get('email')?.trim();
  const reason = search.get('reason');
  return { ...(email ? { email } : {}), ...(isReason(reason) ? { reason } : {}) };
}

function filtersToSearch(filters: SuppressionFilters): URLSearchParams {
  const search = new URLSearchParams();
  if (filters.email?.trim()) search.set('email', filters.email.trim());
  if (filters.reason) search.set('reason', filters.reason);
  return search;
}

/** Asks `read` until it says true or the time is up; tells which. */
async function eventually(read: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + APPLY_TIMEOUT_MS;
  for (;;) {
    if (await read()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, APPLY_POLL_MS));
  }
}

function SuppressionFilterForm({ filters, onApply }: { filters: SuppressionFilters; onApply: (filters: SuppressionFilters) => void }) {
  const [email, setEmail] = useState(filters.email ?? '');
  const [reason, setReason] = useState<string>(filters.reason ?? '');
  return (
    <FilterForm
      label="Filter suppressions"
      columns="lg:grid-cols-4"
      onApply={() => onApply({ email, ...(isReason(reason) ? { reason } : {}) })}
      onClear={() => {
        setEmail('');
        setReason('');
        onApply({});
      }}
    >
      <ChoiceField label="Reason" value={reason} onValue={setReason} any="Any reason" choices={SUPPRESSION_REASONS} />
      <TextField label="Address" type="email" value={email} onValue={setEmail} placeholder="ada@example.com" />
    </FilterForm>
  );
}

/** One row per suppressed address: every reason (the strongest first), since when, and the message whose bounce or complaint caused the strongest. */
function SuppressionTable({
  projectId,
  suppressions,
  onRemove,
}: {
  projectId: string;
  suppressions: Suppression[];
  onRemove: (suppression: Suppression) => void;
}) {
  return (
    <DataTable caption="Suppressed addresses, newest first" minWidth="min-w-[40rem]" columns={SUPPRESSION_COLUMNS} lastColumn="Actions">
      {suppressions.map((s) => (
        <tr key={s.email} aria-label={`Suppression of ${s.email}`}>
          <td className="py-2 pr-3">
            <UserLink projectId={projectId} email={s.email} />
          </td>
          <td className="py-2 pr-3">
            <span className="flex flex-wrap gap-1">
              {reasonsOf(s).map((reason) => (
                <span key={reason} title={REASON_DESCRIPTIONS[reason]}>
                  <Badge tone={REASON_TONES[reason] ?? 'gray'}>{reason}</Badge>
                </span>
              ))}
            </span>
          </td>
          <td className="py-2 pr-3 text-xs whitespace-nowrap">
            <Time at={s.created_at} />
          </td>
          <td className="py-2 pr-3 font-mono text-xs">
            {s.message_id ? (
              // The message log has no filter by id: its recipient's messages, where this one is.
              <Link
                to={`/projects/${projectId}/messages?email=${encodeURIComponent(s.email)}`}
                title={`Messages to ${s.email}`}
                className="text-indigo-600 hover:underline dark:text-indigo-400"
              >
                {s.message_id}
              </Link>
            ) : (
              <span className="text-slate-400">—</span>
            )}
          </td>
          <td className="py-2 text-right">
            <Button tone="danger" onClick={() => onRemove(s)} aria-label={`Remove ${s.email}`}>
              Remove
            </Button>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** Whether an address is on the project's suppression list, as the API says now. */
const isListed = async (projectId: string, email: string): Promise<boolean> =>
  (await api<SuppressionList>(`/projects/${projectId}/suppressions`, { query: { email, limit: 1 } })).data.length > 0;

/**
 * Whether a suppression just added is on the list's first page: the mailer stores it, then adds it
 * to its project's list, so for a moment it is found by address but not yet listed.
 */
const isNewest = async (projectId: string, email: string): Promise<boolean> =>
  (await api<SuppressionList>(`/projects/${projectId}/suppressions`, { query: { limit: SUPPRESSIONS_PER_PAGE } })).data.some(
    (s) => s.email === email,
  );

/** The project's suppression list: the addresses that get no mail and why; filter it, add one by hand, remove one. */
export function SuppressionsScreen() {
  const { projectId = '' } = useParams();
  const queryClient = useQueryClient();
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const filterKey = filtersToSearch(filters).toString();
  const pages = useCursorPages(filterKey);
  const cursor = pages.cursor;
  const query = {
    email: filters.email?.toLowerCase(),
    reason: filters.reason,
    limit: String(SUPPRESSIONS_PER_PAGE),
    cursor,
  };
  const list = useQuery({
    queryKey: queryKeys.suppressionList(projectId, query),
    queryFn: () => api<SuppressionList>(`/projects/${projectId}/suppressions`, { query }),
    placeholderData: (previous) => previous,
  });
  /** What the last add or remove came to, shown above the list. */
  const [notice, setNotice] = useState<string>();
  const [newEmail, setNewEmail] = useState('');
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.suppressions(projectId) });

  // Both changes are accepted, then applied by the mailer a moment later: each waits until the list shows it.
  const add = useMutation({
    mutationFn: async (email: string) => {
      const body: CreateSuppressionRequest = { email, reason: 'manual' };
      await api(`/projects/${projectId}/suppressions`, { method: 'POST', body });
      return { email, applied: await eventually(async () => (await isListed(projectId, email)) && (await isNewest(projectId, email))) };
    },
    onSuccess: ({ email, applied }) => {
      setNewEmail('');
      setNotice(
        applied
          ? `${email} is suppressed: Postbus sends it no email from this project.`
          : `Postbus accepted suppressing ${email}; it is not listed yet. Refresh in a moment.`,
      );
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (suppression: Suppression) => {
      await api(`/projects/${projectId}/suppressions/${encodeURIComponent(suppression.email)}`, { method: 'DELETE' });
      return { email: suppression.email, applied: await eventually(async () => !(await isListed(projectId, suppression.email))) };
    },
    onSuccess: ({ email, applied }) => {
      setRemoving(null);
      setNotice(
        applied
          ? `${email} is no longer suppressed: Postbus mails it again.`
          : `Postbus accepted removing ${email}; it is still listed. Refresh in a moment.`,
      );
      void refresh();
    },
  });
  const submitAdd = (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    add.mutate(newEmail.trim().toLowerCase());
  };

  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Suppressions</h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Addresses of this project that get no email: sends to them become <em>suppressed</em> messages. Bounces and complaints add them by
        themselves; you can add one by hand.
      </p>
      <Card>
        <SuppressionFilterForm key={filterKey} filters={filters} onApply={(next) => setSearch(filtersToSearch(next))} />
      </Card>
      <Card title="Suppress an address">
        <form onSubmit={submitAdd} className="flex flex-wrap items-end gap-3">
          <div className="min-w-0 flex-1 basis-64">
            <TextField
              label="Address to suppress"
              type="email"
              required
              value={newEmail}
              onValue={setNewEmail}
              placeholder="ada@example.com"
            />
          </div>
          <SubmitButton pending={add.isPending} pendingLabel="Suppressing…">
            Suppress
          </SubmitButton>
        </form>
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          With reason <strong>manual</strong>, for every email of this project, until you remove it.
        </p>
        {add.isError && (
          <div className="mt-3">
            <ErrorState error={add.error} />
          </div>
        )}
      </Card>
      {notice && (
        <p
          role="status"
          className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100"
        >
          {notice}
        </p>
      )}
      <Card title="Suppressed addresses" actions={<RefreshButton fetching={list.isFetching} onClick={() => void list.refetch()} />}>
        <CursorPage
          query={list}
          what="the suppression list"
          pages={pages}
          empty={(page) =>
            page.next_cursor
              ? 'None on this page: the next one has more.'
              : filterKey || cursor
                ? 'No suppression matches these filters.'
                : 'No address is suppressed in this project.'
          }
        >
          {(suppressions) => (
            <SuppressionTable
              projectId={projectId}
              suppressions={suppressions}
              onRemove={(s) => {
                remove.reset();
                setRemoving(s);
              }}
            />
          )}
        </CursorPage>
      </Card>
      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => {
          if (!open) {
            setRemoving(null);
            remove.reset();
          }
        }}
        title={`Remove ${removing?.email ?? 'this address'} from the suppression list?`}
        confirmLabel="Remove"
        onConfirm={() => removing && remove.mutate(removing)}
        pending={remove.isPending}
        error={remove.error}
      >
        <p>
          <strong>Postbus will mail this address again</strong>: the next email sent to it from this project is delivered.
          {removing && removalCaveat(removing) ? ` ${removalCaveat(removing)}` : ''}
        </p>
      </ConfirmDialog>
    </div>
  );
}
