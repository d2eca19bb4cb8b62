import { Link } from 'react-router';
import { useTemplates } from '../api/catalog';
import { Card, Empty, ErrorState, Loading, Time } from './ui';
import { PublishState } from './version-history';

/** The project's templates, each opening the editor; a new one starts there too. */
export function TemplateSection({ id, projectId }: { id: string; projectId: string | undefined }) {
  const templates = useTemplates(projectId);
  return (
    <Card
      title={<span id={id}>4. Templates</span>}
      className="scroll-mt-4"
      actions={
        projectId && (
          <>
            <Link
              to={`/projects/${projectId}/layouts`}
              className="rounded-md px-3 py-1.5 text-sm text-indigo-600 hover:underline dark:text-indigo-400"
            >
              Layouts
            </Link>
            <Link
              to={`/projects/${projectId}/templates/new`}
              className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500"
            >
              New template
            </Link>
          </>
        )
      }
    >
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">
        The subject, HTML and text of an email, in Handlebars: <code>{'{{user.name}}'}</code> for the user's attributes,{' '}
        <code>{'{{data.code}}'}</code> for what the send call passes; or MJML. A template may have a version per language and a layout
        around it. Every save is a new version, kept as a draft or published at once.
      </p>
      {!projectId ? (
        <Empty>Create a project first.</Empty>
      ) : templates.isPending ? (
        <Loading what="templates" />
      ) : templates.isError ? (
        <ErrorState error={templates.error} retry={() => void templates.refetch()} />
      ) : templates.data.data.length === 0 ? (
        <Empty>No template yet.</Empty>
      ) : (
        <ul aria-label="Templates" className="divide-y divide-slate-100 dark:divide-slate-800">
          {templates.data.data.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              <Link
                to={`/projects/${projectId}/templates/${t.id}`}
                className="font-medium text-indigo-600 hover:underline dark:text-indigo-400"
              >
                {t.name}
              </Link>
              <span className="min-w-0 flex-1 truncate text-sm text-slate-600 dark:text-slate-300">{t.subject}</span>
              <PublishState latest={t.latest_version} published={t.published_version} />
              <span className="text-xs text-slate-500 dark:text-slate-400">
                saved <Time at={t.updated_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
