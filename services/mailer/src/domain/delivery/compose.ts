import MailComposer from 'nodemailer/lib/mail-composer';
import { reservedHeaderNames } from '@postbus/contracts';

export interface OutgoingMail {
  messageId: string;
  senderDomain: string;
  from: { name: string | null; address: string };
  /** The recipient first, then a content send's further To addresses. */
  to: string[];
  /** Named in the Cc header. Bcc addresses are never written in the message: the relay gets them in the envelope only. */
  cc?: string[];
  replyTo: string | null;
  subject: string;
  /** Empty: the mail has no such part (a content send may bring one body only). */
  html: string;
  text: string;
  /** RFC 2369 / RFC 8058: the https one-click URL and a mailto fallback. */
  unsubscribe: { url: string; mailto: string };
  /** The send's own headers (none Postbus sets: see RESERVED_HEADERS). */
  headers?: Record<string, string>;
  /** Files sent with the message; one with a contentId is an inline part (the HTML refers to it as cid:<contentId>). */
  attachments?: OutgoingAttachment[];
}

export interface OutgoingAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  contentId?: string;
}

/** The RFC 5322 Message-ID of a message: stable across retries, so receivers can drop a copy. */
export const messageIdHeader = (messageId: string, senderDomain: string): string => `<${messageId}@${senderDomain}>`;

/**
 * The send's own headers as they go out: the gateway refused reserved names and line breaks, and
 * a command that got past it some other way still never sets one, nor breaks a header line.
 */
function customHeaders(headers: Record<string, string> = {}): Record<string, string> {
  const reserved = new Set(reservedHeaderNames(Object.keys(headers)));
  return Object.fromEntries(Object.entries(headers).filter(([name, value]) => !reserved.has(name) && !/[\r\n]/.test(value)));
}

/**
 * Builds the MIME message (multipart/alternative text + HTML; multipart/related with inline
 * parts, multipart/mixed with attachments) with nodemailer's own composer.
 */
export function compose(mail: OutgoingMail): Promise<Buffer> {
  return new MailComposer({
    from: mail.from.name ? { name: mail.from.name, address: mail.from.address } : mail.from.address,
    to: mail.to,
    ...(mail.cc?.length ? { cc: mail.cc } : {}),
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    ...(mail.html ? { html: mail.html } : {}),
    ...(mail.text || !mail.html ? { text: mail.text } : {}),
    messageId: messageIdHeader(mail.messageId, mail.senderDomain),
    ...(mail.attachments?.length
      ? {
          attachments: mail.attachments.map((a) => ({
            filename: a.filename,
            content: a.content,
            contentType: a.contentType,
            ...(a.contentId !== undefined ? { cid: a.contentId, contentDisposition: 'inline' as const } : {}),
          })),
        }
      : {}),
    date: new Date(),
    headers: {
      ...customHeaders(mail.headers),
      'List-Unsubscribe': `<${mail.unsubscribe.url}>, <${mail.unsubscribe.mailto}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'X-Postbus-Message-Id': mail.messageId,
    },
  })
    .compile()
    .build();
}
