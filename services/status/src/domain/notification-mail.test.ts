import { activeMaintenance, openIncident, PREVIEW_NOW } from '../../preview/scenarios';
import { confirmationMail, notificationMail } from './notification-mail';

describe('status mails', () => {
  const links = { incident: 'https://status.example.com/incidents/inc-open', unsubscribe: 'https://status.example.com/u?token=t' };

  it('an incident mail names the page, the incident and its status, with its links', () => {
    const incident = openIncident(PREVIEW_NOW);
    const update = incident.updates[0]!;
    const mail = notificationMail('Postbus', incident, update, links);
    expect(mail.subject).toBe(`[Postbus] Incident: ${incident.name} — ${update.status.replace('_', ' ')}`);
    expect(mail.text).toContain(`Details: ${links.incident}`);
    expect(mail.text).toContain(`Unsubscribe: ${links.unsubscribe}`);
    expect(mail.text).not.toContain('Scheduled:');
    expect(mail.unsubscribe).toBe(links.unsubscribe);
  });

  it('a maintenance mail carries its schedule', () => {
    const maintenance = activeMaintenance(PREVIEW_NOW);
    const mail = notificationMail('Postbus', maintenance, maintenance.updates[0]!, links);
    expect(mail.subject).toMatch(/^\[Postbus\] Maintenance: /);
    expect(mail.text).toContain(`Scheduled: ${maintenance.scheduledFor.toISOString()} – ${maintenance.scheduledUntil.toISOString()} (UTC)`);
  });

  it('the confirmation mail holds the confirm link', () => {
    const mail = confirmationMail('Postbus', 'https://status.example.com/subscriptions/confirm?token=x');
    expect(mail.subject).toBe('Confirm your subscription to Postbus status');
    expect(mail.text).toContain('\nhttps://status.example.com/subscriptions/confirm?token=x\n');
  });
});
