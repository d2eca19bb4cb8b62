/**
 * A submitted message as the service reads it (parse/ makes it from the MIME with mailparser):
 * what its headers say and what its parts hold, nothing of MIME's structure.
 */

/** An address of a header (From, To, Cc, Reply-To), its display name decoded ('' without one). */
export interface MailAddress {
  address: string;
  name: string;
}

/** A part of the message that is not its text or HTML body. */
export interface SubmittedAttachment {
  /** The part's file name, decoded; absent when the part names none. */
  filename?: string;
  /** Its media type, lower case, without parameters (`image/png`). */
  contentType: string;
  content: Uint8Array;
  /** Its Content-ID without the angle brackets, when it has one. */
  contentId?: string;
  /** Shown in the body (Content-Disposition inline, or a part of multipart/related) rather than listed as a file. */
  inline: boolean;
}

/** One header field as written (its name's case kept), unfolded and decoded. */
export interface HeaderField {
  name: string;
  value: string;
}

export interface SubmittedMail {
  from: MailAddress[];
  to: MailAddress[];
  cc: MailAddress[];
  replyTo: MailAddress[];
  /** The Subject, decoded; absent when the message has none. */
  subject?: string;
  /** The HTML body; absent when the message has none. */
  html?: string;
  /** The plain-text body; absent when the message has none (never made from the HTML). */
  text?: string;
  attachments: SubmittedAttachment[];
  /** Every header field of the message, in order. */
  headers: HeaderField[];
}

/** What the SMTP transaction said: the envelope's recipients (RCPT TO), in the order given. */
export interface Envelope {
  rcptTo: string[];
}
