import { useMutation, useQuery, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { SavedBy } from '../api/types';
import { ConfirmDialog } from './confirm-dialog';
import { Button, ErrorState, Time } from './ui';
import { VersionDiff, type DiffPart } from './version-diff';
import { PublishState, RollbackExplained, usePublish, useSavedByLabel, VersionHistory, type VersionedResource } from './version-history';

/** What the reads of a template and of a layout share: a name and numbered versions, one published. */
export interface VersionedRead {
  id: string;
  name: string;
  version: number;
  latest_version: number;
  published_version: number;
  saved_by: SavedBy;
  updated_at: string;
}

/** A save of the editor's content: a new draft version, or a version published at once (a creation always is). */
export interface SaveRequest<B> {
  body: B;
  asDraft: boolean;
}

/** Where a template's and a layout's reads live: their path segment and cache keys. */
const KINDS = {
  template: { segment: 'templates', all: queryKeys.templates, read: queryKeys.template, versions: queryKeys.templateVersions },
  layout: { segment: 'layouts', all: queryKeys.layouts, read: queryKeys.layout, versions: queryKeys.layoutVersions },
} as const;

/**
 * What an editor of one template or layout (`id`, or "new") works with: the version the URL names
 * (?version=, else the newest) and opening another; the editor's unsaved content (`draft`, of type
 * D; null: none, the version shown is); saving it (POST when new, then the editor moves to what was
 * created; else PUT, `draft: true` for a draft); publishing a version.
 */
export function useVersionedEditor<T extends VersionedRead, B extends object, D>({
  what,
  projectId,
  id = 'new',
}: {
  what: 'template' | 'layout';
  projectId: string;
  id: string | undefined;
}) {
  const [draft, setDraft] = useState<D | null>(null);
  const kind = KINDS[what];
  const isNew = id === 'new';
  const [search, setSearch] = useSearchParams();
  const version = Number(search.get('version')) || undefined;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const collectionPath = `/projects/${projectId}/${kind.segment}`;
  // Everything read of the project's templates (or layouts): a save or a publish may change any of it.
  const resource: VersionedResource = {
    path: `${collectionPath}/${id}`,
    queryKey: kind.all(projectId),
    versionsKey: kind.versions(projectId, id),
    what,
  };
  const read = useQuery({
    queryKey: kind.read(projectId, id, version),
    queryFn: () => api<T>(resource.path, { query: { version } }),
    enabled: !isNew,
    // Switching versions keeps the editor on screen until the other version arrives.
    placeholderData: (previous) => previous,
  });
  const save = useMutation({
    mutationFn: ({ body, asDraft }: SaveRequest<B>) =>
      isNew
        ? api<T>(collectionPath, { method: 'POST', body })
        : api<T>(resource.path, { method: 'PUT', body: { ...body, ...(asDraft ? { draft: true } : {}) } }),
    onSuccess: (saved) => {
      setDraft(null);
      void queryClient.invalidateQueries({ queryKey: resource.queryKey });
      queryClient.setQueryData(kind.read(projectId, saved.id, undefined), saved);
      if (isNew) void navigate(`/projects/${projectId}/${kind.segment}/${saved.id}`, { replace: true });
      else setSearch({}, { replace: true });
    },
  });
  const publish = usePublish<T>(resource);
  return {
    isNew,
    resource,
    read,
    save,
    publish,
    /** The cache key of one version's read. */
    readKey: (v: number) => kind.read(projectId, id, v),
    draft,
    setDraft,
    /** Shows version `v` in the editor (the newest without ?version=), leaving what was typed. */
    open: (v: number) => {
      setDraft(null);
      setSearch(v === read.data?.latest_version ? {} : { version: String(v) }, { replace: true });
    },
  };
}

/**
 * The versions of what an editor shows: the list (open one in the editor, pick two to compare, roll back) and the
 * comparison of the two picked, part by part (`partsOf`), `comparing` naming what is compared when
 * there is a choice (a language).
 */
export function VersionsPanel<T extends VersionedRead>({
  editor,
  loaded,
  compared,
  onCompare,
  partsOf,
  comparing,
}: {
  editor: { resource: VersionedResource; readKey: (version: number) => readonly unknown[]; open: (version: number) => void };
  loaded: T;
  compared: number[];
  onCompare: (compared: number[]) => void;
  partsOf: (read: T) => { parts: DiffPart[]; note?: string };
  comparing?: string;
}) {
  const pair = compared.length === 2 ? ([compared[0]!, compared[1]!] as const) : undefined;
  return (
    <>
      <VersionHistory<T>
        resource={editor.resource}
        shownVersion={loaded.version}
        onOpen={editor.open}
        compared={compared}
        onCompare={onCompare}
      />
      {pair && (
        <VersionDiff<T>
          path={editor.resource.path}
          queryKey={editor.readKey}
          versions={pair}
          partsOf={partsOf}
          title={`Comparing v${Math.min(...pair)} and v${Math.max(...pair)}${comparing ? ` · ${comparing}` : ''}`}
        />
      )}
    </>
  );
}

/** An editor's title line: back to where it was opened from, the name, which version is published, and who saved the one shown. */
export function EditorHeading({
  back,
  title,
  loaded,
}: {
  back: { to: string; label: string };
  title: string;
  loaded: VersionedRead | undefined;
}) {
  const savedByLabel = useSavedByLabel();
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Link to={back.to} className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
        ← {back.label}
      </Link>
      <h1 className="text-2xl font-semibold">{title}</h1>
      {loaded && (
        <>
          <PublishState latest={loaded.latest_version} published={loaded.published_version} />
          <span className="text-sm text-slate-500 dark:text-slate-400">
            version {loaded.version} of {loaded.latest_version} · saved <Time at={loaded.updated_at} /> by {savedByLabel(loaded.saved_by)}
          </span>
        </>
      )}
    </div>
  );
}

/** Said while the editor shows a version other than the newest: what saving it does. `usedBy`: who uses the published version. */
export function OlderVersionNote({ loaded, usedBy }: { loaded: VersionedRead | undefined; usedBy: string }) {
  if (!loaded || loaded.version === loaded.latest_version) return null;
  return (
    <p role="note" className="rounded-md bg-amber-50 p-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
      You are looking at version {loaded.version}; {usedBy} use version {loaded.published_version}. Saving makes it (with your changes)
      version {loaded.latest_version + 1}.
    </p>
  );
}

/**
 * An editor's actions: Create (a new one), or Save draft and Publish, which makes what the editor
 * shows go live: an edit saved and published at once; else the version shown, a draft ahead or,
 * after a confirmation, an older one (a rollback). `children`: said beside the buttons.
 */
export function SaveButtons<T extends VersionedRead>({
  what,
  loaded,
  dirty,
  save,
  publish,
  onSave,
  onDiscard,
  children,
}: {
  what: 'template' | 'layout';
  /** The version shown; undefined for a new one. */
  loaded: T | undefined;
  dirty: boolean;
  save: Pick<UseMutationResult<T, Error, SaveRequest<unknown>>, 'isPending' | 'variables' | 'error'>;
  publish: UseMutationResult<T, Error, number>;
  onSave: (asDraft: boolean) => void;
  onDiscard: () => void;
  children?: ReactNode;
}) {
  const [confirmRollback, setConfirmRollback] = useState(false);
  const busy = save.isPending || publish.isPending;
  const published = loaded?.published_version ?? 0;
  const publishAction = !loaded
    ? undefined
    : dirty
      ? { label: 'Save and publish', run: () => onSave(false) }
      : loaded.version > published
        ? { label: `Publish v${loaded.version}`, run: () => publish.mutate(loaded.version) }
        : loaded.version < published
          ? { label: `Roll back to v${loaded.version}`, run: () => setConfirmRollback(true) }
          : undefined;
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        {!loaded ? (
          <Button tone="primary" type="submit" disabled={busy}>
            {save.isPending ? 'Saving…' : `Create ${what}`}
          </Button>
        ) : (
          <>
            {/* The form's submit: Enter in a field saves a draft, never publishes. */}
            <Button type="submit" disabled={busy || (!dirty && loaded.version === loaded.latest_version)}>
              {save.isPending && save.variables?.asDraft ? 'Saving…' : 'Save draft'}
            </Button>
            <Button tone="primary" onClick={publishAction?.run} disabled={busy || !publishAction}>
              {publish.isPending || (save.isPending && !save.variables?.asDraft) ? 'Publishing…' : (publishAction?.label ?? 'Published')}
            </Button>
          </>
        )}
        {dirty && (
          <Button onClick={onDiscard} disabled={busy}>
            Discard changes
          </Button>
        )}
        {children}
      </div>
      {save.error && <ErrorState error={save.error} />}
      {publish.error && !confirmRollback && <ErrorState error={publish.error} />}
      {loaded && (
        <ConfirmDialog
          open={confirmRollback}
          onOpenChange={(open) => {
            setConfirmRollback(open);
            if (!open) publish.reset();
          }}
          title={`Roll back to version ${loaded.version}?`}
          confirmLabel={`Publish version ${loaded.version}`}
          tone="primary"
          onConfirm={() => publish.mutate(loaded.version, { onSuccess: () => setConfirmRollback(false) })}
          pending={publish.isPending}
          error={publish.error}
        >
          <RollbackExplained what={what} version={loaded.version} published={published} />
        </ConfirmDialog>
      )}
    </>
  );
}
