import type { Incident, IncidentUpdate, Maintenance } from './model';

/** A notification mail as rendered when its event happened: it waits in the outbox as it is, without its address. */
export interface NotificationMail {
  subject: string;
  text: string;
  unsubscribe: string;
}

/** The confirmation mail of an email subscription (double opt-in). */
export function confirmationMail(pageName: string, confirmUrl: string): { subject: string; text: string } {
  return {
    subject: `Confirm your subscription to ${pageName} status`,
    text: `Someone (hopefully you) asked to be told by mail about incidents and maintenance of ${pageName}.\n\nConfirm here:\n${confirmUrl}\n\nIf it was not you, ignore this mail: nothing will be sent.`,
  };
}

export function notificationMail(
  pageName: string,
  item: Incident | Maintenance,
  update: IncidentUpdate,
  links: { incident: string; unsubscribe: string },
): NotificationMail {
  const kind = 'scheduledFor' in item ? 'Maintenance' : 'Incident';
  const schedule =
    'scheduledFor' in item ? `\nScheduled: ${item.scheduledFor.toISOString()} – ${item.scheduledUntil.toISOString()} (UTC)\n` : '';
  return {
    subject: `[${pageName}] ${kind}: ${item.name} — ${update.status.replace('_', ' ')}`,
    text: `${kind}: ${item.name}\nStatus: ${update.status.replace('_', ' ')}\n${schedule}\n${update.body}\n\n${update.at.toISOString()} (UTC)\n\nDetails: ${links.incident}\n\nUnsubscribe: ${links.unsubscribe}\n`,
    unsubscribe: links.unsubscribe,
  };
}
