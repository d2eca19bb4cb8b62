import { Navigate } from 'react-router';
import { Card, Empty, ErrorState, Loading } from '../components/ui';
import { useCurrentProjectId, useProjects } from '../layout/layout';

/** The start page: the user profile search of the current project, or what is missing for it. */
export function Home() {
  const projects = useProjects();
  const projectId = useCurrentProjectId();
  if (projects.isPending) return <Loading what="projects" />;
  if (projects.isError) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  if (projectId) return <Navigate to={`/projects/${projectId}/users`} replace />;
  return (
    <Card title="No project yet">
      <Empty>
        This client has no project. Create one with <code>POST /v1/projects</code>; its users, messages and payments then show here.
      </Empty>
    </Card>
  );
}
