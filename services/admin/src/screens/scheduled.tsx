import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { Message, MessageList } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { CursorPage, useCursorPages } from '../components/cursor-pages';
import { DataTable } from '../components/data-table';
import { sentAs } from '../components/message-source';
import { UserLink } from '../components/user-link';
import { Button, Card, RefreshButton, Time } from '../components/ui';

const SCHEDULED_PER_PAGE = 25;
const SCHEDULED_COLUMNS = ['Goes at', 'Recipient', 'Email', 'Accepted'];

/**
 * The project's scheduled messages (sent with send_at, waiting for their time), newest accepted
 * first: the message log filtered by status. Each can be cancelled until it goes.
 */
export function ScheduledScreen() {
  const { projectId = '' } = useParams();
  const queryClient = useQueryClient();
  const pages = useCursorPages('scheduled');
  const query = { status: 'scheduled', limit: String(SCHEDULED_PER_PAGE), cursor: pages.cursor };
  const list = useQuery({
    queryKey: queryKeys.messageLog(projectId, query),
    queryFn: () => api<MessageList>(`/projects/${projectId}/messages`, { query }),
    placeholderData: (previous) => previous,
  });
  const [canceling, setCanceling] = useState<Message | null>(null);
  const [notice, setNotice] = useState<string>();
  const cancel = useMutation({
    mutationFn: (message: Message) =>
      api<Message>(`/projects/${projectId}/messages/${encodeURIComponent(message.id)}/cancel`, { method: 'POST' }),
    onSuccess: (message) => {
      setCanceling(null);
      setNotice(`The message to ${message.email} is cancelled: it will not be sent.`);
      void queryClient.invalidateQueries({ queryKey: ['projects', projectId, 'messages'] });
    },
  });

  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Scheduled</h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Messages sent with <code>send_at</code> that wait for their time. Cancel one to stop it: it becomes <em>canceled</em> and is never
        sent.
      </p>
      {notice && (
        <p
          role="status"
          className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100"
        >
          {notice}
        </p>
      )}
      <Card title="Waiting to be sent" actions={<RefreshButton fetching={list.isFetching} onClick={() => void list.refetch()} />}>
        <CursorPage
          query={list}
          what="the scheduled messages"
          pages={pages}
          empty={(page) => (page.next_cursor ? 'None on this page: the next one has more.' : 'No message is scheduled in this project.')}
        >
          {(messages) => (
            <DataTable caption="Scheduled messages, newest first" minWidth="min-w-[40rem]" columns={SCHEDULED_COLUMNS} lastColumn="Actions">
              {messages.map((m) => (
                <tr key={m.id} aria-label={`Scheduled message to ${m.email}`}>
                  <td className="py-2 pr-3 whitespace-nowrap">{m.send_at ? <Time at={m.send_at} /> : '—'}</td>
                  <td className="py-2 pr-3">
                    <UserLink projectId={projectId} email={m.email} />
                  </td>
                  <td className="py-2 pr-3 font-mono text-xs">{sentAs(m)}</td>
                  <td className="py-2 pr-3 text-xs whitespace-nowrap">
                    <Time at={m.created_at} />
                  </td>
                  <td className="py-2 text-right">
                    <Button
                      tone="danger"
                      aria-label={`Cancel the message to ${m.email}`}
                      onClick={() => {
                        cancel.reset();
                        setNotice(undefined);
                        setCanceling(m);
                      }}
                    >
                      Cancel
                    </Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </CursorPage>
      </Card>
      <ConfirmDialog
        open={canceling !== null}
        onOpenChange={(open) => {
          if (!open) {
            setCanceling(null);
            cancel.reset();
          }
        }}
        title={`Cancel the message to ${canceling?.email ?? 'this recipient'}?`}
        confirmLabel="Cancel the message"
        onConfirm={() => canceling && cancel.mutate(canceling)}
        pending={cancel.isPending}
        error={cancel.error}
      >
        <p>
          <strong>It will never be sent.</strong> A message already on its way cannot be cancelled.
        </p>
      </ConfirmDialog>
    </div>
  );
}
