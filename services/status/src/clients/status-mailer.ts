import nodemailer, { type Transporter } from 'nodemailer';
import { confirmationMail, type NotificationMail } from '../domain/notification-mail';
import type { StatusMail } from '../domain/notifier';

/**
 * Status mails, through their own relay (STATUS_SMTP_URL), not the one Postbus sends through: when
 * Postbus's sending is down, that is exactly when these must go out. What they say is rendered in
 * `domain/notification-mail.ts`; this only sends.
 */
export interface StatusMailerOptions {
  smtpUrl: string;
  from: string;
  pageName: string;
}

export class StatusMailer implements StatusMail {
  private readonly transport: Transporter;

  constructor(private readonly options: StatusMailerOptions) {
    this.transport = nodemailer.createTransport(options.smtpUrl);
  }

  async sendConfirmation(to: string, confirmUrl: string): Promise<void> {
    await this.transport.sendMail({ from: this.options.from, to, ...confirmationMail(this.options.pageName, confirmUrl) });
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
