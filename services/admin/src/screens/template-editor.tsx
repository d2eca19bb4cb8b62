import { html } from '@codemirror/lang-html';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, describeError } from '../api/client';
import { queryKeys } from '../api/query-keys';
import type {
  RenderedEmail,
  SaveTemplateRequest,
  Template,
  TemplateError,
  TemplateValidation,
  TemplateVersionList,
  ValidateTemplateRequest,
} from '../api/types';
import {
  Button,
  Card,
  describedBy,
  ErrorState,
  Field,
  FieldError,
  localTime,
  Loading,
  SelectField,
  TextField,
  Time,
} from '../components/ui';
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

/** "Line 2, column 14: …", as far as the check knows where. */
const describeTemplateError = ({ line, column, message }: TemplateError): string =>
  line === null ? message : column === null ? `Line ${line}: ${message}` : `Line ${line}, column ${column}: ${message}`;

/** The check's errors of one field, for under it. */
function TemplateErrors({ errors }: { errors: TemplateError[] }) {
  return errors.length ? (
    <ul>
      {errors.map((error, i) => (
        <li key={i}>{describeTemplateError(error)}</li>
      ))}
    </ul>
  ) : null;
}

function HtmlEditor({ value, onChange, errors }: { value: string; onChange: (value: string) => void; errors: TemplateError[] }) {
  const dark = usePrefersDark();
  const fieldId = useId();
  const invalid = errors.length > 0;
  // The editable element is CodeMirror's own, inside the shadow root (ids do not reach across it): it is named
  // here, and described by a hidden copy of its errors inside the same root (the shown ones are outside, where the styles are).
  const extensions = useMemo(
    () => [
      html(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        'aria-label': 'HTML',
        ...(invalid ? { 'aria-invalid': 'true', 'aria-describedby': fieldId } : {}),
      }),
    ],
    [invalid, fieldId],
  );
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
        {invalid && (
          <p id={fieldId} hidden>
            {errors.map(describeTemplateError).join(' ')}
          </p>
        )}
      </ShadowRootHost>
      {invalid && (
        <FieldError fieldId={fieldId}>
          <TemplateErrors errors={errors} />
        </FieldError>
      )}
    </div>
  );
}

/** The parts of a template the API renders: what the editor shows, saved or not. */
type TemplateParts = Pick<SaveTemplateRequest, 'subject' | 'html' | 'text'>;

/** The sample user and data (JSON as typed) the preview and the check render the template with. */
interface Samples {
  userJson: string;
  dataJson: string;
}

type DraftPreview = TemplateParts & { user: Record<string, unknown>; data: Record<string, unknown> };

/**
 * What the API is asked about the editor's content once typing pauses: its preview (which needs a
 * subject, HTML and valid samples) and its check (any part; the samples when they parse). Nothing
 * while `parts` is not known yet (the template loading).
 */
function useDraftRequests(parts: TemplateParts | undefined, samples: Samples): { preview?: DraftPreview; check?: ValidateTemplateRequest } {
  // Settled as a string: an object would be new on every render and never settle. What the editor
  // first shows is asked about at once; only what is typed then waits.
  const live = parts && JSON.stringify({ parts, ...samples });
  const settled = useSettled(live, PREVIEW_DELAY_MS) ?? live;
  return useMemo(() => {
    if (!settled) return {};
    const { parts: p, userJson, dataJson } = JSON.parse(settled) as { parts: TemplateParts } & Samples;
    const user = parseObject(userJson);
    const data = parseObject(dataJson);
    const text = p.text?.trim() ? p.text : null;
    const sample = { ...('value' in user ? { user: user.value } : {}), ...('value' in data ? { data: data.value } : {}) };
    const content = { ...(p.subject ? { subject: p.subject } : {}), ...(p.html ? { html: p.html } : {}), ...(text ? { text } : {}) };
    return {
      preview:
        'value' in user && 'value' in data && p.subject.trim() && p.html.trim()
          ? { subject: p.subject, html: p.html, text, user: user.value, data: data.value }
          : undefined,
      check: Object.keys(content).length ? { ...content, ...sample } : undefined,
    };
  }, [settled]);
}

function Preview({
  projectId,
  request,
  samples,
  onSamples,
  variables,
}: {
  projectId: string;
  request: DraftPreview | undefined;
  samples: Samples;
  onSamples: (change: Partial<Samples>) => void;
  /** The user and data values the template reads, once the check answered. */
  variables: string[] | undefined;
}) {
  const [showText, setShowText] = useState(false);
  const user = parseObject(samples.userJson);
  const data = parseObject(samples.dataJson);
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
        <JsonField
          label="Sample user"
          value={samples.userJson}
          onChange={(userJson) => onSamples({ userJson })}
          error={'error' in user ? user.error : undefined}
        />
        <JsonField
          label="Sample data"
          value={samples.dataJson}
          onChange={(dataJson) => onSamples({ dataJson })}
          error={'error' in data ? data.error : undefined}
        />
      </div>
      {variables && (
        // What a send of this template must carry (in its user and data) for every value to show.
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          {variables.length ? (
            <>
              Reads: <span className="font-mono text-slate-700 dark:text-slate-300">{variables.join(', ')}</span>
            </>
          ) : (
            'Reads no user or data values.'
          )}
        </p>
      )}
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
  const [samples, setSamples] = useState<Samples>({ userJson: SAMPLE_USER, dataJson: SAMPLE_DATA });
  const requests = useDraftRequests(isNew || loaded ? { subject: shown.subject, html: shown.html, text: shown.text } : undefined, samples);
  // The errors inline while typing: the API's own check, of what the editor shows (saved or not).
  const check = useQuery({
    queryKey: ['projects', projectId, 'templates', 'validate', requests.check],
    queryFn: () => api<TemplateValidation>(`/projects/${projectId}/templates/validate`, { method: 'POST', body: requests.check }),
    enabled: requests.check !== undefined,
    placeholderData: (previous) => previous,
    retry: false,
  });
  // Nothing to check (every part empty) keeps no earlier answer on screen.
  const checked = requests.check ? check.data : undefined;
  const errors = checked?.errors ?? [];
  const errorsOf = (field: TemplateError['field']) => errors.filter((e) => e.field === field);

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
            <TextField
              label="Subject"
              value={shown.subject}
              onValue={(subject) => edit({ subject })}
              required
              maxLength={998}
              error={errorsOf('subject').length ? <TemplateErrors errors={errorsOf('subject')} /> : undefined}
            />
            <HtmlEditor value={shown.html} onChange={(value) => edit({ html: value })} errors={errorsOf('html')} />
            <TextTemplate value={shown.text ?? ''} onChange={(value) => edit({ text: value })} errors={errorsOf('text')} />
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
              {/* Saving stays possible: the API refuses what it cannot render, with its own answer below. */}
              <span role="status" className="text-sm">
                {errors.length > 0 && (
                  <span className="text-red-700 dark:text-red-400">
                    {errors.length === 1 ? '1 error' : `${errors.length} errors`} in the template
                  </span>
                )}
                {check.isError && <span className="text-slate-500 dark:text-slate-400">Not checked: {describeError(check.error)}</span>}
              </span>
            </div>
            {save.isError && <ErrorState error={save.error} />}
          </form>
        </Card>
        <Preview
          projectId={projectId}
          request={requests.preview}
          samples={samples}
          onSamples={(change) => setSamples((current) => ({ ...current, ...change }))}
          variables={checked?.variables}
        />
      </div>
    </div>
  );
}

function TextTemplate({ value, onChange, errors }: { value: string; onChange: (value: string) => void; errors: TemplateError[] }) {
  const error = errors.length ? <TemplateErrors errors={errors} /> : undefined;
  return (
    <Field label="Text part (optional)">
      {(id) => (
        <>
          <textarea
            id={id}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            rows={4}
            placeholder="Left empty, the text part is derived from the HTML."
            {...describedBy(id, { error })}
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-xs dark:border-slate-600 dark:bg-slate-900"
          />
          <FieldError fieldId={id}>{error}</FieldError>
        </>
      )}
    </Field>
  );
}
