import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import type { DraftPreviewRequest, RenderedEmail, TemplateFormat } from '../api/types';
import { Button, ErrorState, Field, Loading, SelectField } from './ui';

/** The sample user and data (JSON as typed) the preview and the check render the template with. */
export interface Samples {
  userJson: string;
  dataJson: string;
}

/** A JSON object typed by the reader, or the reason it is not one. */
export function parseObject(text: string): { value: Record<string, unknown> } | { error: string } {
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'must be a JSON object' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: (error as Error).message };
  }
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

const HOW_RENDERED: Record<TemplateFormat, string> = {
  handlebars: 'Handlebars, values HTML-escaped',
  mjml: 'Handlebars with values escaped, then MJML compiled to HTML',
};

/** The frame the preview's form fills: the form names it as its target. */
export const PREVIEW_FRAME_NAME = 'template-preview-frame';

/**
 * The rendered HTML, framed from the gateway's page of it: each request is posted (a hidden form,
 * its one field the request as JSON) to `/admin/frames/template-preview/…`, which renders it as the
 * API's preview does under a policy of its own that lets the email's inline styles and <style>
 * apply (an MJML template is mostly those) and loads and runs nothing. Inline (srcdoc), the HTML
 * took the panel's policy, which refuses them, and showed unstyled. The frame is `sandbox=""` as
 * the message log's is: no scripts, no same origin, no forms, no navigation of the panel; the
 * panel may still fill it, by its name. Each request gets a new frame: a frame's first navigation
 * replaces its blank page, so the previews leave no entries in the browser's history.
 */
function PreviewFrame({ projectId, request, hidden }: { projectId: string; request: DraftPreviewRequest | undefined; hidden: boolean }) {
  const form = useRef<HTMLFormElement>(null);
  const [posted, setPosted] = useState<string>();
  const asked = request && JSON.stringify(request);
  // The last request asked for stays framed while none can be (samples that are not JSON).
  useEffect(() => {
    if (asked !== undefined) setPosted(asked);
  }, [asked]);
  useEffect(() => {
    if (posted !== undefined) form.current?.submit();
  }, [posted]);
  return (
    <>
      <form ref={form} method="post" action={`/admin/frames/template-preview/${projectId}`} target={PREVIEW_FRAME_NAME} hidden>
        <input type="hidden" name="request" value={posted ?? ''} />
      </form>
      <iframe
        key={posted}
        name={PREVIEW_FRAME_NAME}
        title="Rendered email"
        sandbox=""
        referrerPolicy="no-referrer"
        hidden={hidden}
        className="h-[28rem] w-full rounded border border-slate-200 bg-white dark:border-slate-700"
      />
    </>
  );
}

/**
 * The API's render of what the editor shows (saved or not) with the sample user and data, in the
 * language chosen (each of the template's languages, or its default).
 */
export function TemplatePreview({
  projectId,
  request,
  format,
  languages,
  language,
  onLanguage,
  incomplete,
  samples,
  onSamples,
  variables,
}: {
  projectId: string;
  request: DraftPreviewRequest | undefined;
  format: TemplateFormat;
  /** The template's languages besides its default. */
  languages: readonly string[];
  /** The language previewed; null: the default. */
  language: string | null;
  onLanguage: (language: string | null) => void;
  /** The language chosen lacks a subject or HTML: the preview shows the default. */
  incomplete: boolean;
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
    <div className="space-y-3">
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
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {variables.length ? (
            <>
              Reads: <span className="font-mono text-slate-700 dark:text-slate-300">{variables.join(', ')}</span>
            </>
          ) : (
            'Reads no user or data values.'
          )}
        </p>
      )}
      {languages.length > 0 && (
        <SelectField
          label="Preview language"
          value={language ?? ''}
          onValue={(value) => onLanguage(value || null)}
          hint={incomplete ? `The ${language} variant needs a subject and HTML: the default is shown.` : undefined}
        >
          <option value="">Default</option>
          {languages.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </SelectField>
      )}
      {!request && !rendered.data ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">A subject and HTML are needed to preview the template.</p>
      ) : (
        <div className="space-y-2" aria-busy={rendered.isFetching}>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            Rendered by the API as it will be sent ({HOW_RENDERED[format]}), from what the editor shows — saved or not.
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
              {showText && (
                <pre className="max-h-[28rem] overflow-auto rounded bg-slate-100 p-3 text-xs whitespace-pre-wrap dark:bg-slate-800">
                  {rendered.data.text}
                </pre>
              )}
            </>
          )}
          {/* Always there while the preview is: the form must find its target, and the HTML framed stays while the text is shown. */}
          <PreviewFrame projectId={projectId} request={request} hidden={showText || rendered.isError || !rendered.data} />
        </div>
      )}
    </div>
  );
}
