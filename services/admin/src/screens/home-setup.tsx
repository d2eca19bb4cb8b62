import { Link } from 'react-router';
import { SetupChecklist, useSetupSteps } from '../components/setup-checklist';
import { Card, Loading } from '../components/ui';
import { useCurrentProjectId } from '../layout/layout';
import { readyToSend } from '../lib/setup-steps';
import { Home } from './home';

/**
 * The start page: while a prerequisite of the first send is missing, the setup checklist with a
 * link to the next step; once everything is in place, the usual start (the user profile search).
 */
export function HomeScreen() {
  const projectId = useCurrentProjectId();
  const setup = useSetupSteps(projectId);
  if (setup.isPending) return <Loading what="the setup state" />;
  // The checklist is a help, not a gate: if it cannot be read, the panel still opens.
  if (setup.error || readyToSend(setup.steps)) return <Home />;
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Welcome to Postbus</h1>
      <Card
        title="Before your first email"
        actions={
          <Link to="/setup" className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
            Open setup
          </Link>
        }
      >
        <SetupChecklist steps={setup.steps} />
      </Card>
      {projectId && (
        <p className="text-sm text-slate-600 dark:text-slate-300">
          Looking for someone?{' '}
          <Link to={`/projects/${projectId}/users`} className="text-indigo-600 hover:underline dark:text-indigo-400">
            Find a user
          </Link>
          .
        </p>
      )}
    </div>
  );
}
