import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button, ErrorState } from './ui';

/**
 * A question before an action that cannot be taken back. The native modal <dialog> gives focus
 * trapping, Escape to cancel and an inert page behind it, with no injected <style> element (Radix's
 * scroll lock injects one, which the panel's Content-Security-Policy refuses).
 */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  children,
  confirmLabel,
  onConfirm,
  pending,
  error,
  tone = 'danger',
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  pending?: boolean;
  error?: unknown;
  tone?: 'danger' | 'primary';
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // jsdom has no showModal and no close; browsers all do.
    if (open && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    }
    if (!open && dialog.open) {
      if (typeof dialog.close === 'function') dialog.close();
      else dialog.removeAttribute('open');
    }
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={() => onOpenChange(false)}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg bg-white p-5 text-slate-900 shadow-xl backdrop:bg-slate-950/50 dark:bg-slate-900 dark:text-slate-100"
    >
      <h2 id={titleId} className="text-lg font-semibold">
        {title}
      </h2>
      <div className="mt-2 space-y-2 text-sm text-slate-600 dark:text-slate-300">{children}</div>
      {error !== undefined && error !== null && (
        <div className="mt-3">
          <ErrorState error={error} />
        </div>
      )}
      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={() => onOpenChange(false)}>Cancel</Button>
        <Button tone={tone} onClick={onConfirm} disabled={pending}>
          {pending ? 'Working…' : confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}
