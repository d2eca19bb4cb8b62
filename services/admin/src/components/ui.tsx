import type { ButtonHTMLAttributes, ChangeEventHandler, FormEvent, InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';
import { useId } from 'react';
import { describeError } from '../api/client';

/** The few building blocks every screen shares, so screens read as what they show. */

const buttonTones = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-500 disabled:bg-indigo-400',
  secondary:
    'border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700',
  danger: 'bg-red-600 text-white hover:bg-red-500 disabled:bg-red-400',
} as const;

export function Button({
  tone = 'secondary',
  className = '',
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { tone?: keyof typeof buttonTones }) {
  return (
    <button
      type="button"
      className={`inline-flex items-center justify-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium transition disabled:cursor-not-allowed disabled:opacity-70 ${buttonTones[tone]} ${className}`}
      {...props}
    />
  );
}

const inputClass =
  'w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-900 placeholder:text-slate-400 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

/** A field over a string state: `onValue` gets each new value (in place of an onChange that reads it off the event). */
interface ValueProps {
  onValue?: (value: string) => void;
}

const changeHandler = <E extends HTMLInputElement | HTMLSelectElement>(
  onChange: ChangeEventHandler<E> | undefined,
  onValue: ((value: string) => void) | undefined,
): ChangeEventHandler<E> | undefined => (onValue ? (event) => onValue(event.target.value) : onChange);

/**
 * A label over the control it names: `children` gets the id the label points at, for the control
 * (and for whatever the control refers to, such as its error).
 */
export function Field({ label, children }: { label: ReactNode; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children(id)}
    </div>
  );
}

const hintId = (fieldId: string) => `${fieldId}-hint`;

/** A field's line of help under its control, which the control names as its accessible description. */
function Hint({ fieldId, hint }: { fieldId: string; hint?: string }) {
  return hint ? (
    <p id={hintId(fieldId)} className="text-xs text-slate-500 dark:text-slate-400">
      {hint}
    </p>
  ) : null;
}

const errorId = (fieldId: string) => `${fieldId}-error`;

/** What is wrong with a field's value, under its control; the control names it (with `describedBy`) and is `aria-invalid`. */
export function FieldError({ fieldId, children }: { fieldId: string; children?: ReactNode }) {
  return children ? (
    <div id={errorId(fieldId)} className="text-xs text-red-700 dark:text-red-400">
      {children}
    </div>
  ) : null;
}

/** The aria attributes of a control with an optional hint and error under it. */
export const describedBy = (fieldId: string, { hint, error }: { hint?: unknown; error?: unknown }) => ({
  'aria-invalid': error ? true : undefined,
  'aria-describedby': [hint ? hintId(fieldId) : '', error ? errorId(fieldId) : ''].filter(Boolean).join(' ') || undefined,
});

/** A labelled input: the label is the accessible name, the hint and the error its description. */
export function TextField({
  label,
  hint,
  error,
  onChange,
  onValue,
  ...props
}: InputHTMLAttributes<HTMLInputElement> & ValueProps & { label: string; hint?: string; error?: ReactNode }) {
  return (
    <Field label={label}>
      {(id) => (
        <>
          <input
            id={id}
            className={inputClass}
            {...describedBy(id, { hint, error })}
            onChange={changeHandler(onChange, onValue)}
            {...props}
          />
          <Hint fieldId={id} hint={hint} />
          <FieldError fieldId={id}>{error}</FieldError>
        </>
      )}
    </Field>
  );
}

export function SelectField({
  label,
  hint,
  children,
  onChange,
  onValue,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & ValueProps & { label: string; hint?: string; children: ReactNode }) {
  return (
    <Field label={label}>
      {(id) => (
        <>
          <select
            id={id}
            className={inputClass}
            aria-describedby={hint ? hintId(id) : undefined}
            onChange={changeHandler(onChange, onValue)}
            {...props}
          >
            {children}
          </select>
          <Hint fieldId={id} hint={hint} />
        </>
      )}
    </Field>
  );
}

/** A SelectField over `choices`, each its own label, after a first, empty choice `any` ("Any status"). */
export function ChoiceField({
  any,
  choices,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & ValueProps & { label: string; any: string; choices: readonly string[] }) {
  return (
    <SelectField {...props}>
      <option value="">{any}</option>
      {choices.map((choice) => (
        <option key={choice} value={choice}>
          {choice}
        </option>
      ))}
    </SelectField>
  );
}

/** A form's primary button, its submit: disabled, and saying `pendingLabel`, while what it sent is `pending`. */
export function SubmitButton({
  pending = false,
  pendingLabel,
  disabled = false,
  children,
}: {
  pending?: boolean;
  pendingLabel?: string;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Button tone="primary" type="submit" disabled={pending || disabled}>
      {pending ? pendingLabel : children}
    </Button>
  );
}

/**
 * A filter form, the search landmark `label` names, over a grid of `columns` (`lg:grid-cols-…`):
 * its fields, then Apply (its submit) and Clear.
 */
export function FilterForm({
  label,
  columns,
  onApply,
  onClear,
  children,
}: {
  label: string;
  columns: string;
  onApply: () => void;
  onClear: () => void;
  children: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply();
  };
  return (
    <form role="search" aria-label={label} onSubmit={submit} className={`grid gap-3 sm:grid-cols-2 ${columns}`}>
      {children}
      <div className="flex items-end gap-2">
        <SubmitButton>Apply</SubmitButton>
        <Button onClick={onClear}>Clear</Button>
      </div>
    </form>
  );
}

export function Card({
  title,
  actions,
  children,
  className = '',
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`rounded-lg border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900 ${className}`}>
      {(title || actions) && (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          {title && <h2 className="text-base font-semibold">{title}</h2>}
          {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  );
}

const badgeTones = {
  green: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200',
  amber: 'bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200',
  red: 'bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200',
  blue: 'bg-sky-100 text-sky-800 dark:bg-sky-900/50 dark:text-sky-200',
  gray: 'bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300',
} as const;
export type BadgeTone = keyof typeof badgeTones;

export function Badge({ tone, children }: { tone: BadgeTone; children: ReactNode }) {
  return <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ${badgeTones[tone]}`}>{children}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="animate-pulse py-6 text-sm text-slate-500 dark:text-slate-400">
      Loading {what}…
    </p>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
    >
      <p>{describeError(error)}</p>
      {retry && (
        <Button className="mt-2" onClick={retry}>
          Try again
        </Button>
      )}
    </div>
  );
}

/** Asks again for what a card shows; `fetching` while it is being asked. */
export function RefreshButton({ fetching, onClick }: { fetching: boolean; onClick: () => void }) {
  return (
    <Button onClick={onClick} disabled={fetching}>
      {fetching ? 'Refreshing…' : 'Refresh'}
    </Button>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="py-6 text-center text-sm text-slate-500 dark:text-slate-400">{children}</p>;
}

/** A UTC timestamp as the reader's local date and time (as text, where no element may go: an `<option>`). */
export const localTime = (at: string): string => new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A UTC timestamp as the reader's local date and time, with the exact ISO value on hover. */
export function Time({ at }: { at: string }) {
  return (
    <time dateTime={at} title={at}>
      {localTime(at)}
    </time>
  );
}
