import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { DomainSection } from '../components/domain-section';
import { EmailSection } from '../components/email-section';
import { ProjectSection } from '../components/project-section';
import { SetupChecklist, STEP_ANCHORS, useSetupSteps } from '../components/setup-checklist';
import { TemplateSection } from '../components/template-section';
import { Card, ErrorState, Loading } from '../components/ui';
import { useCurrentProjectId, useProjects } from '../layout/layout';
import { readyToSend } from '../lib/setup-steps';
import { rememberProject } from '../layout/navigation';

/** The setup walk: the spec's prerequisites in its order, each with its state, on one page. */
export function SetupScreen() {
  const projectId = useCurrentProjectId();
  const projects = useProjects();
  const setup = useSetupSteps(projectId);
  const location = useLocation();
  const navigate = useNavigate();
  const project = projects.data?.data.find((p) => p.id === projectId);

  // A checklist link names its section (#templates): scroll to it once the page has drawn it.
  useEffect(() => {
    const anchor = location.hash.slice(1);
    if (!anchor || setup.isPending) return;
    document.getElementById(anchor)?.scrollIntoView({ block: 'start' });
  }, [location.hash, setup.isPending]);

  const pick = (id: string) => {
    rememberProject(id);
    // Back to the projects section, whose steps below now walk the chosen project.
    void navigate({ pathname: '/setup', hash: '#projects' }, { replace: true });
  };

  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Setup</h1>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          What an email needs before the first send{project ? ` in ${project.name}` : ''}, in order.
        </p>
      </div>
      <Card title="Checklist">
        {setup.isPending ? (
          <Loading what="the setup state" />
        ) : setup.error ? (
          <ErrorState error={setup.error} retry={setup.retry} />
        ) : (
          <>
            <SetupChecklist steps={setup.steps} />
            {readyToSend(setup.steps) && (
              <p role="status" className="mt-3 text-sm text-emerald-700 dark:text-emerald-400">
                Everything is in place: your backend can send the emails below.
              </p>
            )}
          </>
        )}
      </Card>
      <DomainSection kind="sender" id={STEP_ANCHORS['sender-domain']} />
      <DomainSection kind="tracking" id={STEP_ANCHORS['tracking-domain']} />
      <ProjectSection id={STEP_ANCHORS.project} projectId={projectId} onPick={pick} />
      <TemplateSection id={STEP_ANCHORS.template} projectId={projectId} />
      <EmailSection id={STEP_ANCHORS.email} projectId={projectId} ready={readyToSend(setup.steps)} />
    </div>
  );
}
