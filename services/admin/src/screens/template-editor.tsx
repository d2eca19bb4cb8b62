import { html } from '@codemirror/lang-html';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type { RenderedEmail, SaveTemplateRequest, Template, TemplateVersionList } from '../api/types';
import { Button, Card, ErrorState, Field, localTime, Loading, SelectField, TextField, Time } from '../components/ui';
import { usePrefersDark } from '../lib/use-prefers-dark';

const STARTER: SaveTemplateRequest = {
  name: 'Welcome',
  subject: 'Welcome, {{user.name}}',
  html: '<h1>Hi {{user.name}}</h1>\n<p>Your code is <strong>{{data.code}}</strong>.</p>\n',
  text: null,
};
const SAMPLE_USER = JSON.stringify({ email: 'ada@example.com', name: 'Ada Lovelace', country: 'GB', language: 'en' }, null, 2);
const SAMPLE_DATA = JSON.stringify({ code: '4711' }, null, 2);
const PREVIEW_DELAY_MS = 400;

/** A JSON object typed by the reader, or the reason it is not one. */
function parseObject(text: string): { value: Record<string, unknown> } | { error: string } {
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'must be a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The value after it stopped changing for a moment: the preview is asked for once typing pauses. */
function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/**
 * Renders its children inside an open shadow root. CodeMirror styles itself at run time; in a
 * document it does so with a <style> element, which the panel's Content-Security-Policy
 * (style-src 'self') blocks, leaving the editor unstyled. Within a shadow root it uses a
 * constructed stylesheet (adoptedStyleSheets), which that policy does not govern.
 */
function ShadowRootHost({ children, className }: { children: ReactNode; className: string }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const [root, setRoot] = useState<ShadowRoot | null>(null);
  useLayoutEffect(() => {
    const host = hostRef.current;
    if (host) setRoot(host.shadowRoot ?? host.attachShadow({ mode: 'open' }));
  }, []);
  return (
    <div ref={hostRef} className={className}>
      {root && createPortal(children, root)}
    </div>
  );
}

function HtmlEditor({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const dark = usePrefersDark();
  // The editable element is CodeMirror's own, inside the shadow root (ids do not reach across it): it is named here.
  const extensions = useMemo(() => [html(), EditorView.lineWrapping, EditorView.contentAttributes.of({ 'aria-label': 'HTML' })], []);
  return (
    <div className="flex flex-col gap-1">
      <span aria-hidden="true" className="text-sm font-medium">
        HTML
      </span>
      <ShadowRootHost className="overflow-hidden rounded-md border border-slate-300 text-sm dark:border-slate-600">
        <CodeMirror
          value={value}
          onChange={onChange}
          extensions={extensions}
          theme={dark ? 'dark' : 'light'}
          minHeight="16rem"
          maxHeight="32rem"
        />
      </ShadowRootHost>
    </div>
  );
}

/** The parts of a template the API renders: what the editor shows, saved or not. */
type TemplateParts = Pick<SaveTemplateRequest, 'subject' | 'html' | 'text'>;

function Preview({ projectId, parts }: { projectId: string; parts: TemplateParts }) {
  const [userJson, setUserJson] = useState(SAMPLE_USER);
  const [dataJson, setDataJson] = useState(SAMPLE_DATA);
  const [showText, setShowText] = useState(false);
  const user = parseObject(userJson);
  const data = parseObject(dataJson);
  // Settled as a string: an object would be new on every render and never settle.
  const settled = useSettled(JSON.stringify({ parts, userJson, dataJson }), PREVIEW_DELAY_MS);
  const request = useMemo(() => {
    const { parts: p, userJson: u, dataJson: d } = JSON.parse(settled) as { parts: TemplateParts; userJson: string; dataJson: string };
    const sampleUser = parseObject(u);
    const sampleData = parseObject(d);
    if (!('value' in sampleUser) || !('value' in sampleData) || !p.subject.trim() || !p.html.trim()) return undefined;
    return { subject: p.subject, html: p.html, text: p.text?.trim() ? p.text : null, user: sampleUser.value, data: sampleData.value };
  }, [settled]);
  const rendered = useQuery({
    queryKey: ['projects', projectId, 'templates', 'preview', request],
    queryFn: () => api<RenderedEmail>(`/projects/${projectId}/template-preview`, { method: 'POST', body: request }),
    enabled: request !== undefined,
    placeholderData: (previous) => previous,
    retry: false,
  });
  return (
    <Card title="Preview">
      <div className="grid gap-3 sm:grid-cols-2">
        <JsonField label="Sample user" value={userJson} onChange={setUserJson} error={'error' in user ? user.error : undefined} />
        <JsonField label="Sample data" value={dataJson} onChange={setDataJson} error={'error' in data ? data.error : undefined} />
      </div>
      {!request && !rendered.data ? (
        <p className="mt-3 text-sm text-slate-500 dark:text-slate-400">A subject and HTML are needed to preview the template.</p>
      ) : (
        <div className="mt-3 space-y-2" aria-busy={rendered.isFetching}>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            Rendered by the API as it will be sent (Handlebars, values HTML-escaped), from what the editor shows — saved or not.
          </p>
          {rendered.isError ? (
            <ErrorState error={rendered.error} />
          ) : !rendered.data ? (
            <Loading what="the preview" />
          ) : (
            <>
              <p className="text-sm">
                <span className="text-slate-500 dark:text-slate-400">Subject: </span>
                <span aria-label="Rendered subject" className="font-medium">
                  {rendered.data.subject}
                </span>
              </p>
              <div className="flex gap-2">
                <Button onClick={() => setShowText((s) => !s)} aria-pressed={showText}>
                  {showText ? 'Show HTML' : 'Show text part'}
                </Button>
              </div>
              {showText ? (
                <pre className="max-h-[28rem] overflow-auto rounded bg-slate-100 p-3 text-xs whitespace-pre-wrap dark:bg-slate-800">
                  {rendered.data.text}
                </pre>
              ) : (
                // No scripts, no forms, no navigation: sandbox="" with the panel's CSP inherited by srcdoc.
                <iframe
                  title="Rendered email"
                  sandbox=""
                  srcDoc={rendered.data.html}
                  className="h-[28rem] w-full rounded border border-slate-200 bg-white dark:border-slate-700"
                />
              )}
            </>
          )}
        </div>
      )}
    </Card>
  );
}

function JsonField({ label, value, onChange, error }: { label: string; value: string; onChange: (v: string) => void; error?: string }) {
  return (
    <Field label={label}>
      {(id) => (
        <>
          <textarea
            id={id}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            rows={6}
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            className="rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-xs dark:border-slate-600 dark:bg-slate-900"
          />
          {error && (
            <p id={`${id}-error`} className="text-xs text-red-700 dark:text-red-400">
              Not previewed: {error}
            </p>
          )}
        </>
      )}
    </Field>
  );
}

/** Editor of one template (or a new one): Handlebars with HTML highlighting, the API's preview, the version history. */
export function TemplateEditorScreen() {
  const { projectId = '', templateId } = useParams();
  const isNew = !templateId || templateId === 'new';
  const [search, setSearch] = useSearchParams();
  const version = Number(search.get('version')) || undefined;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const template = useQuery({
    queryKey: queryKeys.template(projectId, templateId ?? '', version),
    queryFn: () => api<Template>(`/projects/${projectId}/templates/${templateId}`, { query: { version } }),
    enabled: !isNew,
    // Switching versions keeps the editor (and the preview's sample JSON) on screen until the other version arrives.
    placeholderData: (previous) => previous,
  });
  const loaded = template.data;
  // When each version was saved, for the history's choices (a template saved once has none).
  const versions = useQuery({
    queryKey: queryKeys.templateVersions(projectId, templateId ?? ''),
    queryFn: () => api<TemplateVersionList>(`/projects/${projectId}/templates/${templateId}/versions`),
    enabled: !isNew && (loaded?.latest_version ?? 0) > 1,
  });
  const savedAt = new Map(versions.data?.data.map((v) => [v.version, v.created_at]));
  const [draft, setDraft] = useState<SaveTemplateRequest | null>(null);
  const shown: SaveTemplateRequest =
    draft ?? (loaded ? { name: loaded.name, subject: loaded.subject, html: loaded.html, text: loaded.text } : STARTER);
  const dirty = draft !== null;
  const edit = (change: Partial<SaveTemplateRequest>) => setDraft({ ...shown, ...change });

  const save = useMutation({
    mutationFn: (body: SaveTemplateRequest) =>
      isNew
        ? api<Template>(`/projects/${projectId}/templates`, { method: 'POST', body })
        : api<Template>(`/projects/${projectId}/templates/${templateId}`, { method: 'PUT', body }),
    onSuccess: (saved) => {
      setDraft(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.templates(projectId) });
      queryClient.setQueryData(queryKeys.template(projectId, saved.id, undefined), saved);
      if (isNew) void navigate(`/projects/${projectId}/templates/${saved.id}`, { replace: true });
      else setSearch({}, { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ ...shown, text: shown.text?.trim() ? shown.text : null });
  };

  if (!isNew && template.isPending) return <Loading what="the template" />;
  if (!isNew && template.isError) return <ErrorState error={template.error} retry={() => void template.refetch()} />;
  const latest = loaded?.latest_version ?? 0;
  const viewingOld = Boolean(loaded && loaded.version !== latest);
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <Link to="/setup#templates" className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
          ← Setup
        </Link>
        <h1 className="text-2xl font-semibold">{isNew ? 'New template' : shown.name}</h1>
        {loaded && (
          <span className="text-sm text-slate-500 dark:text-slate-400">
            version {loaded.version} of {latest} · saved <Time at={loaded.updated_at} />
          </span>
        )}
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Template">
          <form onSubmit={submit} className="space-y-3">
            {loaded && latest > 1 && (
              <SelectField
                label="Version history"
                value={String(loaded.version)}
                onChange={(e) => {
                  setDraft(null);
                  const chosen = Number(e.target.value);
                  setSearch(chosen === latest ? {} : { version: String(chosen) }, { replace: true });
                }}
              >
                {Array.from({ length: latest }, (_, i) => latest - i).map((v) => (
                  <option key={v} value={v}>
                    Version {v}
                    {v === latest ? ' (latest)' : ''}
                    {savedAt.has(v) ? ` · saved ${localTime(savedAt.get(v)!)}` : ''}
                  </option>
                ))}
              </SelectField>
            )}
            {viewingOld && (
              <p role="note" className="rounded-md bg-amber-50 p-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
                You are looking at version {loaded?.version}. Saving makes it (with your changes) version {latest + 1}; emails send the
                latest version.
              </p>
            )}
            <TextField label="Name" value={shown.name} onValue={(name) => edit({ name })} required maxLength={200} />
            <TextField label="Subject" value={shown.subject} onValue={(subject) => edit({ subject })} required maxLength={998} />
            <HtmlEditor value={shown.html} onChange={(value) => edit({ html: value })} />
            <TextTemplate value={shown.text ?? ''} onChange={(value) => edit({ text: value })} />
            <div className="flex flex-wrap items-center gap-2">
              <Button tone="primary" type="submit" disabled={save.isPending || (!dirty && !isNew && !viewingOld)}>
                {save.isPending
                  ? 'Saving…'
                  : isNew
                    ? 'Create template'
                    : viewingOld
                      ? `Restore as version ${latest + 1}`
                      : 'Save new version'}
              </Button>
              {dirty && (
                <Button onClick={() => setDraft(null)} disabled={save.isPending}>
                  Discard changes
                </Button>
              )}
            </div>
            {save.isError && <ErrorState error={save.error} />}
          </form>
        </Card>
        <Preview projectId={projectId} parts={{ subject: shown.subject, html: shown.html, text: shown.text }} />
      </div>
    </div>
  );
}

function TextTemplate({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Field label="Text part (optional)">
      {(id) => (
        <textarea
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          rows={4}
          placeholder="Left empty, the text part is derived from the HTML."
          className="rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-xs dark:border-slate-600 dark:bg-slate-900"
        />
      )}
    </Field>
  );
}
