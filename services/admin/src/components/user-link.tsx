import { Link } from 'react-router';

/** An address, linked to the profile of its user in the project. */
export function UserLink({ projectId, email }: { projectId: string; email: string }) {
  return (
    <Link to={`/projects/${projectId}/users/${encodeURIComponent(email)}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
      {email}
    </Link>
  );
}
