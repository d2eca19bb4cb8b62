import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

/** One tab: its key, and what it shows (its accessible name unless `name` says otherwise). */
export interface TabItem {
  key: string;
  label: ReactNode;
  name?: string;
}

/** The ids that tie each tab to its panel (aria-controls, aria-labelledby). */
export function useTabIds() {
  const id = useId();
  return { tab: (key: string) => `${id}-tab-${encodeURIComponent(key)}`, panel: (key: string) => `${id}-panel-${encodeURIComponent(key)}` };
}
export type TabIds = ReturnType<typeof useTabIds>;

/**
 * Tabs as the WAI-ARIA tabs pattern has them: one tab stop (the selected tab), the arrow keys, Home
 * and End move along the tabs and select the one they reach.
 */
export function TabList({
  label,
  tabs,
  selected,
  onSelect,
  ids,
}: {
  label: string;
  tabs: TabItem[];
  selected: string;
  onSelect: (key: string) => void;
  ids: TabIds;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  const move = (event: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.key === selected);
    const to =
      event.key === 'ArrowRight'
        ? (at + 1) % tabs.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + tabs.length) % tabs.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? tabs.length - 1
              : undefined;
    if (to === undefined) return;
    event.preventDefault();
    const key = tabs[to]!.key;
    onSelect(key);
    listRef.current?.ownerDocument.getElementById(ids.tab(key))?.focus();
  };
  return (
    <div
      ref={listRef}
      role="tablist"
      aria-label={label}
      onKeyDown={move}
      className="flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-700"
    >
      {tabs.map((tab) => {
        const isSelected = tab.key === selected;
        return (
          <button
            key={tab.key}
            type="button"
            role="tab"
            id={ids.tab(tab.key)}
            aria-selected={isSelected}
            aria-controls={ids.panel(tab.key)}
            aria-label={tab.name}
            tabIndex={isSelected ? 0 : -1}
            onClick={() => onSelect(tab.key)}
            className={`-mb-px inline-flex items-center gap-1 border-b-2 px-3 py-1.5 text-sm ${
              isSelected
                ? 'border-indigo-600 font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300'
                : 'border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white'
            }`}
          >
            {tab.label}
          </button>
        );
      })}
    </div>
  );
}

/** The panel of the selected tab, named by it. */
export function TabPanel({
  ids,
  tabKey,
  children,
  className = '',
}: {
  ids: TabIds;
  tabKey: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div role="tabpanel" id={ids.panel(tabKey)} aria-labelledby={ids.tab(tabKey)} className={className}>
      {children}
    </div>
  );
}
