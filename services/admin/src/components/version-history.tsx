import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { ApiKey, ListOf, SavedBy, VersionList } from '../api/types';
import { ConfirmDialog } from './confirm-dialog';
import { Badge, Button, ErrorState, Loading, Time } from './ui';

/** A template or a layout: both keep numbered versions, one of them published, under the same routes. */
export interface VersionedResource {
  /** Its API path below /v1, such as `/projects/{p}/templates/{t}`. */
  path: string;
  /** The cache key every read of it starts with (each version's read and the list of versions). */
  queryKey: readonly unknown[];
  /** The cache key of its list of versions. */
  versionsKey: readonly unknown[];
  /** What it is, for the confirmation. */
  what: 'template' | 'layout';
}

/** Which version sends use, and whether a draft is ahead of it: "Draft v5 · published v3". */
export function PublishState({ latest, published }: { latest: number; published: number }) {
  return latest > published ? (
    <Badge tone="amber">{`Draft v${latest} · published v${published}`}</Badge>
  ) : (
    <Badge tone="green">{`Published v${published}`}</Badge>
  );
}

/**
 * Who saved a version, as people know them: the key's name when the panel can read the keys (key
 * “checkout backend”), else its id; "via panel" when it was saved in a session the key opened.
 */
export function useSavedByLabel(): (savedBy: SavedBy) => string {
  // The keys screen's own read (same key, same answer): a bound key's session may be refused it, then ids show.
  const keys = useQuery({ queryKey: queryKeys.apiKeys, queryFn: () => api<ListOf<ApiKey>>('/keys'), retry: false, staleTime: 60_000 });
  const names = new Map(keys.data?.data.map((key) => [key.id, key.name]));
  return (savedBy) => {
    if (savedBy === null) return 'unknown';
    const name = names.get(savedBy.key_id);
    return `${name === undefined ? savedBy.key_id : `key “${name}”`}${savedBy.via === 'session' ? ' via panel' : ''}`;
  };
}

/** Publishes version n of `resource` (a draft going live, or a rollback), refreshing everything read of it. */
export function usePublish<T>(resource: VersionedResource, onPublished?: (read: T) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api<T>(`${resource.path}/versions/${version}/publish`, { method: 'POST' }),
    onSuccess: (read) => {
      void queryClient.invalidateQueries({ queryKey: resource.queryKey });
      onPublished?.(read);
    },
  });
}

/** Two versions to compare: picking a third lets go of the one picked first. */
export const toggleCompared = (compared: readonly number[], version: number): number[] =>
  compared.includes(version) ? compared.filter((v) => v !== version) : [...compared, version].slice(-2);

/**
 * The versions of a template or layout, newest first: who saved each and when, which one is
 * published and which one the editor shows; each opens in the editor, two picked are compared, an
 * older one than the published can be rolled back to (after a confirmation).
 */
export function VersionHistory<T>({
  resource,
  shownVersion,
  onOpen,
  compared,
  onCompare,
  onPublished,
}: {
  resource: VersionedResource;
  shownVersion: number;
  onOpen: (version: number) => void;
  compared: readonly number[];
  onCompare: (compared: number[]) => void;
  onPublished?: (read: T) => void;
}) {
  const versions = useQuery({ queryKey: resource.versionsKey, queryFn: () => api<VersionList>(`${resource.path}/versions`) });
  const savedByLabel = useSavedByLabel();
  const [rollbackTo, setRollbackTo] = useState<number>();
  const publish = usePublish<T>(resource, (read) => {
    setRollbackTo(undefined);
    onPublished?.(read);
  });
  if (versions.isPending) return <Loading what="the versions" />;
  if (versions.isError) return <ErrorState error={versions.error} retry={() => void versions.refetch()} />;
  const published = versions.data.data.find((v) => v.published)?.version ?? 0;
  return (
    <>
      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400">Tick two versions to compare them side by side.</p>
      <ul aria-label="Versions" className="max-h-72 divide-y divide-slate-100 overflow-y-auto dark:divide-slate-800">
        {versions.data.data.map((v) => {
          const state = v.published ? 'published' : v.version > published ? 'draft' : undefined;
          return (
            <li key={v.version} aria-label={`Version ${v.version}`} className="flex flex-wrap items-center gap-x-2 gap-y-1 py-1.5 text-sm">
              <input
                type="checkbox"
                aria-label={`Compare version ${v.version}`}
                checked={compared.includes(v.version)}
                onChange={() => onCompare(toggleCompared(compared, v.version))}
                className="h-4 w-4"
              />
              <span className="w-8 font-medium">v{v.version}</span>
              {state && <Badge tone={state === 'published' ? 'green' : 'amber'}>{state}</Badge>}
              {v.version === shownVersion && <Badge tone="blue">in the editor</Badge>}
              <span className="min-w-0 flex-1 truncate text-xs text-slate-500 dark:text-slate-400">
                {savedByLabel(v.saved_by)} · <Time at={v.created_at} />
              </span>
              {v.version !== shownVersion && (
                <Button className="px-2 py-0.5 text-xs" aria-label={`Open version ${v.version}`} onClick={() => onOpen(v.version)}>
                  Open
                </Button>
              )}
              {v.version < published && (
                <Button
                  className="px-2 py-0.5 text-xs"
                  aria-label={`Roll back to version ${v.version}`}
                  onClick={() => setRollbackTo(v.version)}
                >
                  Roll back
                </Button>
              )}
            </li>
          );
        })}
      </ul>
      <ConfirmDialog
        open={rollbackTo !== undefined}
        onOpenChange={(open) => {
          if (!open) {
            setRollbackTo(undefined);
            publish.reset();
          }
        }}
        title={`Roll back to version ${rollbackTo}?`}
        confirmLabel={`Publish version ${rollbackTo}`}
        tone="primary"
        onConfirm={() => rollbackTo !== undefined && publish.mutate(rollbackTo)}
        pending={publish.isPending}
        error={publish.error}
      >
        <RollbackExplained what={resource.what} version={rollbackTo} published={published} />
      </ConfirmDialog>
    </>
  );
}

/** What a rollback does, for its confirmation: who uses which version from now on. */
export function RollbackExplained({
  what,
  version,
  published,
}: {
  what: 'template' | 'layout';
  version: number | undefined;
  published: number;
}) {
  return (
    <p>
      {what === 'layout' ? 'Templates' : 'Sends'} use version {version} of this {what} from now on, in place of version {published}. No
      version is deleted: version {published} can be published again.
    </p>
  );
}
