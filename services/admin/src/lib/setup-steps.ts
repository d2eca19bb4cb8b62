import type { Project, SenderDomain, TrackingDomain } from '../api/types';

/**
 * The spec's prerequisites of a first send, in its order. Pure, so the checklist's "next step" can
 * be tested without a server.
 */
export type SetupStepId = 'sender-domain' | 'tracking-domain' | 'project' | 'template' | 'email';
/** done; started but not usable yet (a domain not verified, a project without its sender domain); not started; optional and not set up. */
export type SetupStepState = 'done' | 'incomplete' | 'missing' | 'optional';

export interface SetupStep {
  id: SetupStepId;
  title: string;
  state: SetupStepState;
  /** What the reader should know or do, in one sentence. */
  detail: string;
}

export interface SetupFacts {
  senderDomains: Array<Pick<SenderDomain, 'id' | 'domain' | 'status'>>;
  trackingDomains: Array<Pick<TrackingDomain, 'id' | 'domain' | 'status'>>;
  /** The project being set up (the current one), or null when the client has none. */
  project: Pick<Project, 'id' | 'name' | 'sender_domain_id' | 'tracking_domain_id'> | null;
  templateCount: number;
  emailCount: number;
}

export function setupSteps(facts: SetupFacts): SetupStep[] {
  const verifiedSender = facts.senderDomains.filter((d) => d.status === 'verified');
  const projectSender = facts.senderDomains.find((d) => d.id === facts.project?.sender_domain_id);
  const projectTracking = facts.trackingDomains.find((d) => d.id === facts.project?.tracking_domain_id);
  const steps: SetupStep[] = [];

  steps.push(
    verifiedSender.length
      ? {
          id: 'sender-domain',
          title: 'Sender domain',
          state: 'done',
          detail: `${verifiedSender.map((d) => d.domain).join(', ')} verified.`,
        }
      : facts.senderDomains.length
        ? {
            id: 'sender-domain',
            title: 'Sender domain',
            state: 'incomplete',
            detail: `Publish the DNS records of ${facts.senderDomains[0]?.domain ?? 'your domain'}, then verify it.`,
          }
        : { id: 'sender-domain', title: 'Sender domain', state: 'missing', detail: 'Add the domain your mail comes from.' },
  );

  steps.push(
    projectTracking?.status === 'verified'
      ? { id: 'tracking-domain', title: 'Tracking domain', state: 'done', detail: `${projectTracking.domain} verified and used.` }
      : {
          id: 'tracking-domain',
          title: 'Tracking domain',
          state: 'optional',
          detail: 'Optional: open and click links on your own domain (a CNAME) instead of the Postbus host.',
        },
  );

  const project = facts.project;
  steps.push(
    !project
      ? { id: 'project', title: 'Project', state: 'missing', detail: 'Create a project: it holds users, templates and emails.' }
      : projectSender?.status === 'verified'
        ? { id: 'project', title: 'Project', state: 'done', detail: `${project.name} sends from ${projectSender.domain}.` }
        : {
            id: 'project',
            title: 'Project',
            state: 'incomplete',
            detail: projectSender
              ? `${project.name} sends from ${projectSender.domain}, which is not verified yet.`
              : `Choose the sender domain of ${project.name}.`,
          },
  );

  steps.push(
    facts.templateCount > 0
      ? {
          id: 'template',
          title: 'Template',
          state: 'done',
          detail: `${facts.templateCount} template${facts.templateCount === 1 ? '' : 's'}.`,
        }
      : {
          id: 'template',
          title: 'Template',
          state: 'missing',
          detail: project ? 'Write the subject and HTML of an email.' : 'Needs a project first.',
        },
  );

  steps.push(
    facts.emailCount > 0
      ? {
          id: 'email',
          title: 'Transactional email',
          state: 'done',
          detail: `${facts.emailCount} email${facts.emailCount === 1 ? '' : 's'} you can send by key.`,
        }
      : {
          id: 'email',
          title: 'Transactional email',
          state: 'missing',
          detail: 'Bind a key (e.g. welcome) to a template: your backend sends it by that key.',
        },
  );
  return steps;
}

/** The first required step that is not done: what the home screen links to. Optional steps are never "next". */
export const nextStep = (steps: SetupStep[]): SetupStep | undefined => steps.find((s) => s.state === 'incomplete' || s.state === 'missing');

/** Whether an email can be sent: every required step done. */
export const readyToSend = (steps: SetupStep[]): boolean => nextStep(steps) === undefined;
