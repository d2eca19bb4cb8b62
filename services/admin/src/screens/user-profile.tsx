import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { PAGE_LIMIT, type EraseAccepted, type MessageList, type PaymentList, type SuppressionList, type UserProfile } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { reasonsOf } from '../components/suppression-reasons';
import { isSettled, MessageItem } from '../components/timeline';
import { Badge, Button, Card, Empty, ErrorState, Loading, Time } from '../components/ui';
import { UserSearchForm } from './user-search';

/** How often a view with something still in flight asks again (only while the tab is visible). */
const POLL_MS = 2_000;
const MESSAGES_PER_PAGE = 20;
const PAYMENT_COLUMNS = ['Paid', 'Amount', 'Payment id'];

/** A user named in the URL by email (it holds an @) or by the client's user_id. */
async function fetchProfile(projectId: string, ref: string): Promise<UserProfile> {
  const byUserId = () => api<UserProfile>(`/projects/${projectId}/users/${encodeURIComponent(ref)}`);
  if (!ref.includes('@')) return byUserId();
  try {
    return await api<UserProfile>(`/projects/${projectId}/users`, { query: { email: ref } });
  } catch (error) {
    // A user_id may hold an @ too; an address that names no user may be one.
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return byUserId();
    throw error;
  }
}

const formatAmount = (minor: number, currency: string): string => {
  try {
    const digits = new Intl.NumberFormat(undefined, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(minor / 10 ** digits);
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
};

function Attributes({ profile }: { profile: UserProfile }) {
  const rows: Array<[string, string | number | null]> = [
    ['Email', profile.email],
    ['user_id', profile.user_id],
    ['Name', profile.name],
    ['Country', profile.country],
    ['Language', profile.language],
    ['Gender', profile.gender],
    ['Age', profile.age],
  ];
  const custom = Object.entries(profile.fields);
  return (
    <Card title="Attributes">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
            <dd className="break-all">{value ?? <span className="text-slate-400">—</span>}</dd>
          </div>
        ))}
      </dl>
      <h3 className="mt-4 mb-1 text-sm font-semibold">Custom fields</h3>
      {custom.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">None.</p>
      ) : (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          {custom.map(([name, value]) => (
            <div key={name} className="contents">
              <dt className="font-mono text-slate-500 dark:text-slate-400">{name}</dt>
              <dd className="font-mono break-all">{JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      <p className="mt-4 text-xs text-slate-500 dark:text-slate-400">
        Created <Time at={profile.created_at} /> · updated <Time at={profile.updated_at} />
      </p>
    </Card>
  );
}

type PendingAction = 'unsubscribe' | 'erase' | null;

/** Whether the address is on the project's suppression list (a bounce, a complaint, by hand), and why. */
function SuppressionState({ projectId, email }: { projectId: string; email: string }) {
  const suppression = useQuery({
    queryKey: queryKeys.suppression(projectId, email),
    queryFn: () => api<SuppressionList>(`/projects/${projectId}/suppressions`, { query: { email, limit: 1 } }),
  });
  if (suppression.isPending) return <span className="text-slate-500 dark:text-slate-400">…</span>;
  if (suppression.isError) return <span className="text-slate-500 dark:text-slate-400">could not be read</span>;
  const [entry] = suppression.data.data;
  if (!entry) return <span>not suppressed</span>;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <Badge tone="red">suppressed: {reasonsOf(entry).join(', ')}</Badge>
      <span className="text-xs">
        since <Time at={entry.created_at} />
      </span>
      <Link
        to={`/projects/${projectId}/suppressions?email=${encodeURIComponent(email)}`}
        className="text-xs text-indigo-600 hover:underline dark:text-indigo-400"
      >
        in the suppression list
      </Link>
    </span>
  );
}

function Status({
  projectId,
  profile,
  onChanged,
}: {
  projectId: string;
  profile: UserProfile;
  onChanged: (action: 'unsubscribe' | 'erase') => void;
}) {
  const [confirm, setConfirm] = useState<PendingAction>(null);
  const unsubscribe = useMutation({
    mutationFn: () =>
      api(`/projects/${projectId}/users/unsubscribe`, { method: 'POST', body: { email: profile.email, reason: 'admin panel' } }),
    onSuccess: () => {
      setConfirm(null);
      onChanged('unsubscribe');
    },
  });
  const erase = useMutation({
    mutationFn: () => api<EraseAccepted>(`/projects/${projectId}/users/erase`, { method: 'POST', body: { email: profile.email } }),
    onSuccess: () => {
      setConfirm(null);
      onChanged('erase');
    },
  });
  const subscribed = profile.subscription.status === 'subscribed';
  return (
    <Card title="Subscription and erasure">
      <dl className="space-y-2 text-sm">
        <div className="flex flex-wrap items-center gap-2">
          <dt className="text-slate-500 dark:text-slate-400">Subscription</dt>
          <dd className="flex flex-wrap items-center gap-2">
            <Badge tone={subscribed ? 'green' : 'amber'}>{profile.subscription.status}</Badge>
            {profile.subscription.unsubscribed_at && (
              <span className="text-xs">
                since <Time at={profile.subscription.unsubscribed_at} />
                {profile.subscription.reason ? ` (${profile.subscription.reason})` : ''}
              </span>
            )}
          </dd>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <dt className="text-slate-500 dark:text-slate-400">Suppression</dt>
          <dd>
            <SuppressionState projectId={projectId} email={profile.email} />
          </dd>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <dt className="text-slate-500 dark:text-slate-400">Erasure</dt>
          <dd>
            {profile.erasure ? (
              <span className="flex flex-wrap items-center gap-2">
                <Badge tone="red">queued for erasure</Badge>
                <span className="text-xs">
                  erase_at <Time at={profile.erasure.erase_at} />
                </span>
              </span>
            ) : (
              <span>not requested</span>
            )}
          </dd>
        </div>
      </dl>
      <div className="mt-4 flex flex-wrap gap-2">
        <Button onClick={() => setConfirm('unsubscribe')} disabled={!subscribed}>
          Unsubscribe
        </Button>
        <Button tone="danger" onClick={() => setConfirm('erase')} disabled={profile.erasure !== null}>
          Erase
        </Button>
      </div>
      <ConfirmDialog
        open={confirm === 'unsubscribe'}
        onOpenChange={(open) => setConfirm(open ? 'unsubscribe' : null)}
        title="Unsubscribe this user?"
        confirmLabel="Unsubscribe"
        tone="primary"
        onConfirm={() => unsubscribe.mutate()}
        pending={unsubscribe.isPending}
        error={unsubscribe.error}
      >
        <p>
          {profile.email} will get no further email from this project, except emails marked to reach unsubscribed users (such as password
          resets).
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'erase'}
        onOpenChange={(open) => setConfirm(open ? 'erase' : null)}
        title="Erase this user?"
        confirmLabel="Erase user"
        onConfirm={() => erase.mutate()}
        pending={erase.isPending}
        error={erase.error}
      >
        <p>
          {profile.email} gets no email from now on. After a <strong>2-day delay</strong> (the server's erasure delay), every service
          deletes what it holds about them: profile, messages, payments (anonymised), webhook deliveries.
        </p>
        <p>This cannot be undone once the delay has passed.</p>
      </ConfirmDialog>
    </Card>
  );
}

function Payments({ projectId, email }: { projectId: string; email: string }) {
  const payments = useInfiniteQuery({
    queryKey: queryKeys.userPayments(projectId, email),
    queryFn: ({ pageParam }) =>
      api<PaymentList>(`/projects/${projectId}/payments`, { query: { email, limit: PAGE_LIMIT.max, cursor: pageParam } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  if (payments.isPending)
    return (
      <Card title="Payments">
        <Loading what="payments" />
      </Card>
    );
  if (payments.isError)
    return (
      <Card title="Payments">
        <ErrorState error={payments.error} retry={() => void payments.refetch()} />
      </Card>
    );
  const list = payments.data.pages.flatMap((p) => p.data);
  const described = list.some((p) => p.description);
  const totals = new Map<string, number>();
  for (const p of list) totals.set(p.currency, (totals.get(p.currency) ?? 0) + p.amount);
  return (
    <Card title="Payments">
      {list.length === 0 ? (
        <Empty>No payments recorded for this user.</Empty>
      ) : (
        <>
          <p className="mb-3 flex flex-wrap gap-3 text-sm" aria-label="Totals">
            <span className="text-slate-500 dark:text-slate-400">{payments.hasNextPage ? 'Total of the payments shown' : 'Total'}</span>
            {[...totals].map(([currency, amount]) => (
              <strong key={currency}>{formatAmount(amount, currency)}</strong>
            ))}
          </p>
          <DataTable
            caption="Payments of this user"
            columns={described ? [...PAYMENT_COLUMNS, 'Description'] : PAYMENT_COLUMNS}
            density="compact"
          >
            {list.map((p) => (
              <tr key={p.payment_id} className="border-t border-slate-100 dark:border-slate-800">
                <td className="py-1 pr-3 whitespace-nowrap">
                  <Time at={p.paid_at} />
                </td>
                <td className="py-1 pr-3 whitespace-nowrap">{formatAmount(p.amount, p.currency)}</td>
                <td className="py-1 pr-3 font-mono text-xs">{p.payment_id}</td>
                {described && <td className="py-1">{p.description ?? ''}</td>}
              </tr>
            ))}
          </DataTable>
          {payments.hasNextPage && (
            <Button className="mt-3" onClick={() => void payments.fetchNextPage()} disabled={payments.isFetchingNextPage}>
              Load more payments
            </Button>
          )}
        </>
      )}
    </Card>
  );
}

function Messages({ projectId, email }: { projectId: string; email: string }) {
  const messages = useInfiniteQuery({
    queryKey: queryKeys.userMessages(projectId, email),
    queryFn: ({ pageParam }) =>
      api<MessageList>(`/projects/${projectId}/messages`, { query: { email, limit: MESSAGES_PER_PAGE, cursor: pageParam } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Poll only while an email is still on its way; TanStack pauses intervals in a hidden tab.
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.data.some((m) => !isSettled(m))) ? POLL_MS : false),
  });
  return (
    <Card title="Messages" actions={<span className="text-xs text-slate-500 dark:text-slate-400">newest first</span>}>
      {messages.isPending ? (
        <Loading what="messages" />
      ) : messages.isError ? (
        <ErrorState error={messages.error} retry={() => void messages.refetch()} />
      ) : messages.data.pages[0]?.data.length === 0 ? (
        <Empty>No email has been triggered for this user.</Empty>
      ) : (
        <div className="space-y-3">
          {messages.data.pages
            .flatMap((page) => page.data)
            .map((message) => (
              <MessageItem key={message.id} message={message} />
            ))}
          {messages.hasNextPage && (
            <Button onClick={() => void messages.fetchNextPage()} disabled={messages.isFetchingNextPage}>
              Load older messages
            </Button>
          )}
        </div>
      )}
    </Card>
  );
}

export function UserProfileScreen() {
  const { projectId = '', ref = '' } = useParams();
  const queryClient = useQueryClient();
  // After an action the services apply it asynchronously (through Kafka): poll until the profile shows it.
  const [awaiting, setAwaiting] = useState<'unsubscribe' | 'erase' | null>(null);
  const profile = useQuery({
    queryKey: queryKeys.user(projectId, ref),
    queryFn: () => fetchProfile(projectId, ref),
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!awaiting || !data) return false;
      const applied = awaiting === 'unsubscribe' ? data.subscription.status === 'unsubscribed' : data.erasure !== null;
      return applied ? false : POLL_MS / 2;
    },
  });
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-semibold break-all">{profile.data?.name ?? profile.data?.email ?? ref}</h1>
      </div>
      <Card>
        <UserSearchForm key={ref} initial={ref} />
      </Card>
      {profile.isPending ? (
        <Loading what="the user" />
      ) : profile.isError ? (
        profile.error instanceof ApiError && profile.error.status === 404 ? (
          <Card>
            <Empty>No user with the email or user_id “{ref}” in this project.</Empty>
          </Card>
        ) : (
          <ErrorState error={profile.error} retry={() => void profile.refetch()} />
        )
      ) : (
        <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
          <div className="space-y-4">
            <Attributes profile={profile.data} />
            <Status
              projectId={projectId}
              profile={profile.data}
              onChanged={(action) => {
                setAwaiting(action);
                void queryClient.invalidateQueries({ queryKey: queryKeys.user(projectId, ref) });
              }}
            />
            <Payments projectId={projectId} email={profile.data.email} />
          </div>
          <Messages projectId={projectId} email={profile.data.email} />
        </div>
      )}
    </div>
  );
}
