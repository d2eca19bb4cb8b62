import { useSyncExternalStore } from 'react';

/**
 * The sections of the panel, in the order the navigation shows them. A section scoped to a project
 * builds its path from the chosen project; a new screen (setup, messages, payments, API keys) is
 * one entry here and one route in app.tsx.
 */
export interface Section {
  label: string;
  path: (projectId: string | undefined) => string | undefined;
}

export const SECTIONS: Section[] = [
  { label: 'User profile', path: (projectId) => (projectId ? `/projects/${projectId}/users` : undefined) },
  { label: 'Webhooks', path: () => '/webhooks' },
  { label: 'Setup', path: () => '/setup' },
  // The templates are on the setup screen; the layouts around them have a screen of their own, per project.
  { label: 'Layouts', path: (projectId) => (projectId ? `/projects/${projectId}/layouts` : undefined) },
  { label: 'Messages', path: (projectId) => (projectId ? `/projects/${projectId}/messages` : undefined) },
  { label: 'Scheduled', path: (projectId) => (projectId ? `/projects/${projectId}/scheduled` : undefined) },
  { label: 'Suppressions', path: (projectId) => (projectId ? `/projects/${projectId}/suppressions` : undefined) },
  { label: 'Revenue', path: (projectId) => (projectId ? `/projects/${projectId}/revenue` : undefined) },
  { label: 'Erasures', path: () => '/erasures' },
  { label: 'API keys', path: () => '/keys' },
];

const LAST_PROJECT = 'postbus.admin.project';

/** Told when the remembered project changes (here, or in another tab of this browser). */
const listeners = new Set<() => void>();

/** The project last chosen in this browser (a convenience only; the URL is the truth). */
const rememberedProject = (): string | undefined => localStorage.getItem(LAST_PROJECT) ?? undefined;

export function rememberProject(projectId: string): void {
  localStorage.setItem(LAST_PROJECT, projectId);
  for (const listener of listeners) listener();
}

function onRememberedProjectChange(listener: () => void): () => void {
  listeners.add(listener);
  const fromOtherTab = (event: StorageEvent) => {
    if (event.key === LAST_PROJECT) listener();
  };
  window.addEventListener('storage', fromOtherTab);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', fromOtherTab);
  };
}

/**
 * The remembered project as React state: a screen without a project in its URL (webhooks, setup,
 * keys) re-renders when the picker changes it, so the picker and the project's links follow.
 */
export const useRememberedProject = (): string | undefined => useSyncExternalStore(onRememberedProjectChange, rememberedProject);
