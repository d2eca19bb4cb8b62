import nodemailer, { type Transporter } from 'nodemailer';
import type { Incident, IncidentUpdate, Maintenance } from '../domain/model';

/**
 * Status mails, through their own relay (STATUS_SMTP_URL), not the one Postbus sends through: when
 * Postbus's sending is down, that is exactly when these must go out.
 */
export interface StatusMailerOptions {
  smtpUrl: string;
  from: string;
  pageName: string;
}

export class StatusMailer {
  private readonly transport: Transporter;

  constructor(private readonly options: StatusMailerOptions) {
    this.transport = nodemailer.createTransport(options.smtpUrl);
  }

  async sendConfirmation(to: string, confirmUrl: string): Promise<void> {
    const { pageName } = this.options;
    await this.transport.sendMail({
      from: this.options.from,
      to,
      subject: `Confirm your subscription to ${pageName} status`,
      text: `Someone (hopefully you) asked to be told by mail about incidents and maintenance of ${pageName}.\n\nConfirm here:\n${confirmUrl}\n\nIf it was not you, ignore this mail: nothing will be sent.`,
    });
  }

  /** Sends a notification rendered by notificationMail. */
  async send(to: string, mail: NotificationMail): Promise<void> {
    await this.transport.sendMail({
      from: this.options.from,
      to,
      subject: mail.subject,
      text: mail.text,
      list: { unsubscribe: { url: mail.unsubscribe, comment: 'Unsubscribe' } },
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
  }

  close(): void {
    this.transport.close();
  }
}

/** A notification mail as rendered when its event happened: it waits in the outbox as it is, without its address. */
export interface NotificationMail {
  subject: string;
  text: string;
  unsubscribe: string;
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
