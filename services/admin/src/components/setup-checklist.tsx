import { Link } from 'react-router';
import { useEmails, useSenderDomains, useTemplates, useTrackingDomains } from '../api/catalog';
import { useProjects } from '../layout/layout';
import { nextStep, setupSteps, type SetupStep, type SetupStepId, type SetupStepState } from '../lib/setup-steps';
import { Badge, type BadgeTone } from './ui';

/** Where each step is worked on: its section of the setup screen. */
export const STEP_ANCHORS: Record<SetupStepId, string> = {
  'sender-domain': 'sender-domains',
  'tracking-domain': 'tracking-domains',
  project: 'projects',
  template: 'templates',
  email: 'emails',
};

const STATE_BADGES: Record<SetupStepState, { tone: BadgeTone; label: string }> = {
  done: { tone: 'green', label: 'done' },
  incomplete: { tone: 'amber', label: 'to finish' },
  missing: { tone: 'red', label: 'missing' },
  optional: { tone: 'gray', label: 'optional' },
};

/** The setup steps of a project from the API's catalog reads; pending until every read answered. */
export function useSetupSteps(projectId: string | undefined) {
  const senderDomains = useSenderDomains();
  const trackingDomains = useTrackingDomains();
  const projects = useProjects();
  const templates = useTemplates(projectId);
  const emails = useEmails(projectId);
  const reads = [senderDomains, trackingDomains, projects, ...(projectId ? [templates, emails] : [])];
  const error = reads.find((r) => r.isError)?.error;
  const isPending = reads.some((r) => r.isPending);
  const project = projects.data?.data.find((p) => p.id === projectId) ?? null;
  const steps = isPending
    ? []
    : setupSteps({
        senderDomains: senderDomains.data?.data ?? [],
        trackingDomains: trackingDomains.data?.data ?? [],
        project,
        templateCount: templates.data?.data.length ?? 0,
        emailCount: emails.data?.data.length ?? 0,
      });
  return { steps, isPending, error, retry: () => reads.forEach((r) => void r.refetch()) };
}

export function SetupChecklist({ steps }: { steps: SetupStep[] }) {
  const next = nextStep(steps);
  return (
    <ol aria-label="Setup steps" className="space-y-2">
      {steps.map((step, index) => {
        const badge = STATE_BADGES[step.state];
        const isNext = step === next;
        return (
          <li
            key={step.id}
            aria-current={isNext ? 'step' : undefined}
            className={`flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border p-3 ${isNext ? 'border-indigo-400 bg-indigo-50 dark:border-indigo-600 dark:bg-indigo-950/40' : 'border-slate-200 dark:border-slate-800'}`}
          >
            <span className="w-5 text-sm font-semibold text-slate-500 dark:text-slate-400">{index + 1}.</span>
            <Link to={`/setup#${STEP_ANCHORS[step.id]}`} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
              {step.title}
            </Link>
            <Badge tone={badge.tone}>{badge.label}</Badge>
            <span className="min-w-0 flex-1 basis-full text-sm text-slate-600 sm:basis-auto dark:text-slate-300">{step.detail}</span>
            {isNext && (
              <Link
                to={`/setup#${STEP_ANCHORS[step.id]}`}
                className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500"
              >
                Next step
              </Link>
            )}
          </li>
        );
      })}
    </ol>
  );
}
