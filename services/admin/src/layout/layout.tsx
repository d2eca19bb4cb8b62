import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, api, onSessionEnded } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { currentSession, signOut } from '../api/session';
import { PAGE_LIMIT, type Project } from '../api/types';
import { Button, ErrorState, Loading } from '../components/ui';
import type { SignInState } from '../screens/sign-in';
import { rememberProject, SECTIONS, useRememberedProject } from './navigation';

/** Whether someone is signed in, and who: asked once a minute at most. */
export const useSession = () => useQuery({ queryKey: queryKeys.session, queryFn: currentSession, staleTime: 60_000, retry: false });

export function useProjects() {
  // Not before the session is known: without one, the 401 would read as a session that ended.
  const session = useSession();
  return useQuery({
    queryKey: queryKeys.projects,
    queryFn: () => api<{ data: Project[] }>('/projects', { query: { limit: PAGE_LIMIT.max } }),
    enabled: session.isSuccess,
  });
}

/** The project the screens work in: the URL's, else the one last chosen, else the first. */
export function useCurrentProjectId(): string | undefined {
  const { projectId } = useParams();
  const projects = useProjects();
  const remembered = useRememberedProject();
  if (projectId) return projectId;
  const list = projects.data?.data ?? [];
  return list.find((p) => p.id === remembered)?.id ?? list[0]?.id;
}

function ProjectPicker() {
  const projects = useProjects();
  const current = useCurrentProjectId();
  const navigate = useNavigate();
  const location = useLocation();
  if (!projects.data?.data.length) return null;
  return (
    <label className="flex items-center gap-2 text-sm">
      <span className="text-slate-500 dark:text-slate-400">Project</span>
      <select
        className="max-w-[12rem] rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-900"
        value={current ?? ''}
        onChange={(e) => {
          rememberProject(e.target.value);
          // Within a project's screens, stay on the same kind of screen in the other project.
          if (location.pathname.startsWith('/projects/')) void navigate(`/projects/${e.target.value}/users`);
        }}
      >
        {projects.data.data.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Layout() {
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const session = useSession();
  const projectId = useCurrentProjectId();

  useEffect(
    () =>
      onSessionEnded(() => {
        queryClient.clear();
        void navigate('/sign-in', { state: { expired: true, from: location.pathname } satisfies SignInState });
      }),
    [navigate, queryClient, location.pathname],
  );
  const signOutMutation = useMutation({
    mutationFn: signOut,
    onSettled: () => {
      queryClient.clear();
      void navigate('/sign-in');
    },
  });

  if (session.isPending) return <Loading what="your session" />;
  if (session.error instanceof ApiError && session.error.status === 401)
    return <Navigate to="/sign-in" replace state={{ from: location.pathname } satisfies SignInState} />;
  if (session.isError) return <ErrorState error={session.error} retry={() => void session.refetch()} />;

  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <NavLink to="/" className="font-semibold text-indigo-600 dark:text-indigo-400">
            Postbus
          </NavLink>
          <nav aria-label="Sections" className="flex flex-wrap gap-1">
            {SECTIONS.map((section) => {
              const to = section.path(projectId);
              return to ? (
                <NavLink
                  key={section.label}
                  to={to}
                  end={false}
                  className={({ isActive }) =>
                    `rounded-md px-2 py-1 text-sm ${isActive ? 'bg-indigo-50 font-medium text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300' : 'text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800'}`
                  }
                >
                  {section.label}
                </NavLink>
              ) : null;
            })}
          </nav>
          <div className="ml-auto flex flex-wrap items-center gap-3">
            <ProjectPicker />
            <span className="hidden font-mono text-xs text-slate-500 sm:inline dark:text-slate-400" title="Signed in as this client">
              {session.data.client_id}
            </span>
            <Button onClick={() => signOutMutation.mutate()} disabled={signOutMutation.isPending}>
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-6">
        <Outlet />
      </main>
    </div>
  );
}
