import { html } from '@codemirror/lang-html';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import type { TemplateError } from '../api/types';
import { usePrefersDark } from '../lib/use-prefers-dark';
import { FieldError } from './ui';

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

/** What is wrong with a part of a template or layout: where (line and column, from 1) when known, and what. */
export type PartError = Pick<TemplateError, 'line' | 'column' | 'message'>;

/** "Line 2, column 14: …", as far as the check knows where. */
export const describeTemplateError = ({ line, column, message }: PartError): string =>
  line === null ? message : column === null ? `Line ${line}: ${message}` : `Line ${line}, column ${column}: ${message}`;

/** The check's errors of one field, for under it. */
export function TemplateErrors({ errors }: { errors: PartError[] }) {
  return errors.length ? (
    <ul>
      {errors.map((error, i) => (
        <li key={i}>{describeTemplateError(error)}</li>
      ))}
    </ul>
  ) : null;
}

/** Handlebars HTML (or MJML) with HTML highlighting, named `label`, its errors under it. */
export function HtmlEditor({
  label = 'HTML',
  hint,
  value,
  onChange,
  errors,
}: {
  label?: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  errors: PartError[];
}) {
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
        'aria-label': label,
        ...(invalid ? { 'aria-invalid': 'true', 'aria-describedby': fieldId } : {}),
      }),
    ],
    [invalid, fieldId, label],
  );
  return (
    <div className="flex flex-col gap-1">
      <span aria-hidden="true" className="text-sm font-medium">
        {label}
      </span>
      <ShadowRootHost className="overflow-hidden rounded-md border border-slate-300 text-sm dark:border-slate-600">
        <CodeMirror
          value={value}
          onChange={onChange}
          extensions={extensions}
          theme={dark ? 'dark' : 'light'}
          minHeight="14rem"
          maxHeight="32rem"
        />
        {invalid && (
          <p id={fieldId} hidden>
            {errors.map(describeTemplateError).join(' ')}
          </p>
        )}
      </ShadowRootHost>
      {hint && <p className="text-xs text-slate-500 dark:text-slate-400">{hint}</p>}
      {invalid && (
        <FieldError fieldId={fieldId}>
          <TemplateErrors errors={errors} />
        </FieldError>
      )}
    </div>
  );
}
