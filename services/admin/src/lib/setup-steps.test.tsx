import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { SetupChecklist } from '../components/setup-checklist';
import { nextStep, readyToSend, setupSteps, type SetupFacts } from './setup-steps';

const verified = { id: 'd1', domain: 'mail.acme.test', status: 'verified' as const };
const pending = { id: 'd2', domain: 'news.acme.test', status: 'pending' as const };
const project = { id: 'p1', name: 'Acme', sender_domain_id: null, tracking_domain_id: null };

const facts = (overrides: Partial<SetupFacts>): SetupFacts => ({
  senderDomains: [],
  trackingDomains: [],
  project: null,
  templateCount: 0,
  emailCount: 0,
  ...overrides,
});

describe('the setup checklist', () => {
  it('when nothing exists, then the next step is the sender domain, and the steps come in the spec order', () => {
    const steps = setupSteps(facts({}));
    expect(steps.map((s) => s.id)).toEqual(['sender-domain', 'tracking-domain', 'project', 'template', 'email']);
    expect(nextStep(steps)?.id).toBe('sender-domain');
    expect(readyToSend(steps)).toBe(false);
  });

  it('when the only sender domain is not verified, then it is still the next step, to finish', () => {
    const steps = setupSteps(facts({ senderDomains: [pending], project: { ...project, sender_domain_id: 'd2' } }));
    expect(nextStep(steps)).toMatchObject({ id: 'sender-domain', state: 'incomplete' });
    expect(steps.find((s) => s.id === 'project')).toMatchObject({ state: 'incomplete' });
  });

  it('when the domain is verified but the project does not send from it, then the project is next (the optional tracking domain is skipped)', () => {
    const steps = setupSteps(facts({ senderDomains: [verified], project }));
    expect(steps.find((s) => s.id === 'tracking-domain')?.state).toBe('optional');
    expect(nextStep(steps)).toMatchObject({ id: 'project', state: 'incomplete', detail: 'Choose the sender domain of Acme.' });
  });

  it('when the project sends from a verified domain, then the template and then the email are next, and then it is ready', () => {
    const ready = { senderDomains: [verified], project: { ...project, sender_domain_id: 'd1' } };
    expect(nextStep(setupSteps(facts(ready)))?.id).toBe('template');
    expect(nextStep(setupSteps(facts({ ...ready, templateCount: 1 })))?.id).toBe('email');
    const done = setupSteps(facts({ ...ready, templateCount: 1, emailCount: 2 }));
    expect(nextStep(done)).toBeUndefined();
    expect(readyToSend(done)).toBe(true);
  });

  it('shows every step with its state and links the next missing one to its section of the setup screen', () => {
    const steps = setupSteps(facts({ senderDomains: [verified], project: { ...project, sender_domain_id: 'd1' } }));
    render(
      <MemoryRouter>
        <SetupChecklist steps={steps} />
      </MemoryRouter>,
    );
    const items = within(screen.getByRole('list', { name: 'Setup steps' })).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('a')?.textContent)).toEqual([
      'Sender domain',
      'Tracking domain',
      'Project',
      'Template',
      'Transactional email',
    ]);
    const current = items.find((li) => li.getAttribute('aria-current') === 'step');
    expect(current).toHaveTextContent('Template');
    expect(within(current!).getByRole('link', { name: 'Next step' })).toHaveAttribute('href', '/setup#templates');
    expect(items[0]).toHaveTextContent('done');
    expect(items[1]).toHaveTextContent('optional');
  });
});
