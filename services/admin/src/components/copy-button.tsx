import { useEffect, useState } from 'react';
import { Button } from './ui';

/** Copies a value to the clipboard and says so for a moment (the label is what a screen reader hears). */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(null), 2_000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = () => {
    // The clipboard exists only in secure contexts (https or localhost); say so rather than fail silently.
    if (!navigator.clipboard) return setCopied('failed');
    navigator.clipboard.writeText(value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  return (
    <Button onClick={copy} aria-label={label}>
      <span aria-live="polite">{copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Select and copy' : 'Copy'}</span>
    </Button>
  );
}
