import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-color-scheme: dark)';

/** The system's colour scheme, for the few widgets Tailwind's `dark:` cannot reach (the code editor, chart colours). */
export function usePrefersDark(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const media = window.matchMedia?.(QUERY);
      media?.addEventListener('change', onChange);
      return () => media?.removeEventListener('change', onChange);
    },
    () => window.matchMedia?.(QUERY).matches ?? false,
  );
}
