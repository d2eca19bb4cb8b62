import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../api/client';
import { useLayouts } from '../api/catalog';
import { queryKeys } from '../api/query-keys';
import type { Layout } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Button, Card, Empty, ErrorState, Loading, Time } from '../components/ui';
import { PublishState } from '../components/version-history';

/** A project's layouts: the HTML around templates' bodies, each opening its editor; deleted unless a published template uses it. */
export function LayoutsScreen() {
  const { projectId = '' } = useParams();
  const layouts = useLayouts(projectId);
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<Layout>();
  const remove = useMutation({
    mutationFn: (layout: Layout) => api<void>(`/projects/${projectId}/layouts/${layout.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setDeleting(undefined);
      void queryClient.invalidateQueries({ queryKey: queryKeys.layouts(projectId) });
    },
  });
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Layouts</h1>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          The HTML (and text) around a template's body: a header and footer shared by many templates. A template names its layout; the
          layout's <code>{'{{{content}}}'}</code> receives the rendered body, and it reads the same <code>user</code> and <code>data</code>.
        </p>
      </div>
      <Card
        title="Layouts"
        actions={
          <>
            <Link to="/setup#templates" className="rounded-md px-3 py-1.5 text-sm text-indigo-600 hover:underline dark:text-indigo-400">
              Templates
            </Link>
            <Link
              to={`/projects/${projectId}/layouts/new`}
              className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500"
            >
              New layout
            </Link>
          </>
        }
      >
        {layouts.isPending ? (
          <Loading what="layouts" />
        ) : layouts.isError ? (
          <ErrorState error={layouts.error} retry={() => void layouts.refetch()} />
        ) : layouts.data.data.length === 0 ? (
          <Empty>No layout yet.</Empty>
        ) : (
          <ul aria-label="Layouts" className="divide-y divide-slate-100 dark:divide-slate-800">
            {layouts.data.data.map((layout) => (
              <li key={layout.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
                <Link
                  to={`/projects/${projectId}/layouts/${layout.id}`}
                  className="font-medium text-indigo-600 hover:underline dark:text-indigo-400"
                >
                  {layout.name}
                </Link>
                <PublishState latest={layout.latest_version} published={layout.published_version} />
                <span className="min-w-0 flex-1 text-xs text-slate-500 dark:text-slate-400">
                  saved <Time at={layout.updated_at} />
                </span>
                <Button tone="danger" aria-label={`Delete ${layout.name}`} onClick={() => setDeleting(layout)}>
                  Delete
                </Button>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <ConfirmDialog
        open={deleting !== undefined}
        onOpenChange={(open) => {
          if (!open) {
            setDeleting(undefined);
            remove.reset();
          }
        }}
        title={`Delete ${deleting?.name}?`}
        confirmLabel="Delete layout"
        onConfirm={() => deleting && remove.mutate(deleting)}
        pending={remove.isPending}
        error={remove.error}
      >
        <p>
          Its versions go with it. A layout that the published version of a template uses cannot be deleted: the answer names those
          templates.
        </p>
      </ConfirmDialog>
    </div>
  );
}
