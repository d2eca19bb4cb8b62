import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { MESSAGE_STATUSES, type MessageList, type MessageStats } from '../api/types';
import { MessageContentView } from '../components/message-content';
import { inFlight, MessageStatsChart } from '../components/message-stats-chart';
import { MessageSource } from '../components/message-source';
import { isSettled } from '../components/timeline';
import { CursorPage, useCursorPages } from '../components/cursor-pages';
import { DataTable } from '../components/data-table';
import { UserLink } from '../components/user-link';
import {
  Badge,
  Button,
  Card,
  ChoiceField,
  ErrorState,
  Loading,
  FilterForm,
  RefreshButton,
  SelectField,
  TextField,
  Time,
  type BadgeTone,
} from '../components/ui';
import { utcDay } from '../lib/days';
import { chartRange, filtersFromSearch, filtersToSearch, messageLogQuery, type MessageFilters } from '../lib/message-filters';

/** How often the log asks again while a message on the page is still in flight (only while the tab is visible). */
const POLL_MS = 3_000;
const MESSAGE_COLUMNS = ['Accepted', 'Recipient', 'Email', 'Subject', 'Status', 'Opens / clicks'];

export const STATUS_TONES: Record<string, BadgeTone> = {
  scheduled: 'blue',
  queued: 'blue',
  deferred: 'amber',
  sent: 'green',
  bounced: 'red',
  failed: 'red',
  suppressed: 'gray',
  canceled: 'gray',
};

function MessageFilterForm({ filters, onApply }: { filters: MessageFilters; onApply: (filters: MessageFilters) => void }) {
  const [draft, setDraft] = useState(filters);
  const set = (name: keyof MessageFilters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));
  return (
    <FilterForm
      label="Filter messages"
      columns="lg:grid-cols-8"
      onApply={() => onApply(draft)}
      onClear={() => {
        setDraft({});
        onApply({});
      }}
    >
      <ChoiceField label="Status" value={draft.status ?? ''} onValue={set('status')} any="Any status" choices={MESSAGE_STATUSES} />
      <TextField label="Recipient" type="email" value={draft.email ?? ''} onValue={set('email')} placeholder="ada@example.com" />
      <TextField label="Email key" value={draft.email_key ?? ''} onValue={set('email_key')} placeholder="welcome" />
      <TextField label="Tag" value={draft.tag ?? ''} onValue={set('tag')} placeholder="receipt" />
      <TextField label="From (UTC)" type="datetime-local" value={draft.from ?? ''} onValue={set('from')} />
      <TextField label="To (UTC)" type="datetime-local" value={draft.to ?? ''} onValue={set('to')} />
      <SelectField label="Messages" value={draft.test ?? ''} onValue={set('test')}>
        <option value="">Real messages</option>
        <option value="true">Test messages</option>
      </SelectField>
    </FilterForm>
  );
}

/** The message log of a project: filters in the URL, cursor paging, and the messages by status per UTC day. */
export function MessagesScreen() {
  const { projectId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const filterKey = filtersToSearch(filters).toString();
  const pages = useCursorPages(filterKey);
  const cursor = pages.cursor;
  /** The message whose email is shown under its row. */
  const [shown, setShown] = useState<string>();
  const query = messageLogQuery(filters, cursor);
  const log = useQuery({
    queryKey: queryKeys.messageLog(projectId, query),
    queryFn: () => api<MessageList>(`/projects/${projectId}/messages`, { query }),
    refetchInterval: (q) => (q.state.data?.data.some((m) => !isSettled(m)) ? POLL_MS : false),
    placeholderData: (previous) => previous,
  });
  const range = chartRange(filters, new Date());
  const stats = useQuery({
    queryKey: queryKeys.messageStats(projectId, range.from, range.to),
    queryFn: () => api<MessageStats>(`/projects/${projectId}/messages/stats`, { query: range }),
    // The day counts are rollups kept a moment after a message changes: ask again while the log or the
    // chart itself still shows messages in flight (accepted today, not yet settled), the tab visible.
    refetchInterval: (q) =>
      log.data?.data.some((m) => !isSettled(m)) || (q.state.data && range.to >= utcDay(new Date()) && inFlight(q.state.data) > 0)
        ? POLL_MS
        : false,
  });
  const apply = (next: MessageFilters) => setSearch(filtersToSearch(next));

  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Messages</h1>
      <Card>
        <MessageFilterForm key={filterKey} filters={filters} onApply={apply} />
      </Card>
      <Card title="Messages by status per day">
        {stats.isPending ? (
          <Loading what="the message counts" />
        ) : stats.isError ? (
          <ErrorState error={stats.error} retry={() => void stats.refetch()} />
        ) : (
          <MessageStatsChart stats={stats.data} />
        )}
      </Card>
      <Card
        title="Log"
        actions={
          // New messages are not pushed to the panel: the log polls only while one on the page is in flight.
          <RefreshButton
            fetching={log.isFetching}
            onClick={() => {
              void log.refetch();
              void stats.refetch();
            }}
          />
        }
      >
        <CursorPage
          query={log}
          what="messages"
          pages={pages}
          empty={() => (filterKey || cursor ? 'No message matches these filters.' : 'No message yet: send one through the API.')}
        >
          {(messages) => (
            <DataTable caption="Messages, newest first" minWidth="min-w-[44rem]" columns={MESSAGE_COLUMNS} lastColumn="Email as sent">
              {messages.map((m) => (
                <Fragment key={m.id}>
                  <tr>
                    <td className="py-2 pr-3 whitespace-nowrap">
                      <Time at={m.created_at} />
                    </td>
                    <td className="py-2 pr-3">
                      <UserLink projectId={projectId} email={m.email} />
                    </td>
                    <td className="py-2 pr-3 text-xs">
                      <MessageSource message={m} />
                    </td>
                    <td className="max-w-[16rem] truncate py-2 pr-3" title={m.subject ?? undefined}>
                      {m.subject ?? <span className="text-slate-400">—</span>}
                    </td>
                    <td className="py-2 pr-3">
                      <Badge tone={STATUS_TONES[m.status] ?? 'gray'}>{m.status}</Badge>
                      {m.test && (
                        <span className="ml-1" title="Sent with a test key: simulated, never delivered">
                          <Badge tone="amber">test</Badge>
                        </span>
                      )}
                    </td>
                    <td className="py-2 pr-3 text-xs">
                      {m.opens} / {m.clicks}
                    </td>
                    <td className="py-2">
                      {/* A subject means an attempt rendered the email: before that there is nothing to show. */}
                      {m.subject !== null && (
                        <Button
                          aria-expanded={shown === m.id}
                          aria-label={`${shown === m.id ? 'Hide' : 'Show'} the email sent to ${m.email}`}
                          onClick={() => setShown(shown === m.id ? undefined : m.id)}
                        >
                          {shown === m.id ? 'Hide' : 'Show'}
                        </Button>
                      )}
                    </td>
                  </tr>
                  {shown === m.id && (
                    <tr>
                      <td colSpan={7} className="pb-3">
                        <MessageContentView projectId={projectId} messageId={m.id} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </DataTable>
          )}
        </CursorPage>
      </Card>
    </div>
  );
}
