/**
 * The JSON shapes of Mailpit's API v1, field for field: what the smtp sink (services/smtp-sink)
 * serves, so Mailpit clients work against it, and what tests read from it (libs/testing).
 */

export interface MailpitAddress {
  Name: string;
  Address: string;
}

export interface MailpitAttachment {
  PartID: string;
  FileName: string;
  ContentType: string;
  ContentID: string;
  Size: number;
  Checksums: { MD5: string; SHA1: string; SHA256: string };
}

/** What the headers alone tell, decoded: enough for the list, the search and the summary. */
export interface MailpitHeaderView {
  MessageID: string;
  From: MailpitAddress | null;
  To: MailpitAddress[];
  Cc: MailpitAddress[];
  Bcc: MailpitAddress[];
  ReplyTo: MailpitAddress[];
  ReturnPath: string;
  Subject: string;
}

/** What a message's bodies tell: its text and HTML, and its parts. */
export interface MailpitBodies {
  Text: string;
  HTML: string;
  Inline: MailpitAttachment[];
  Attachments: MailpitAttachment[];
}

/** A message as lists and searches show it: the header view but the return path, and a digest of the body. */
export interface MailpitSummary extends Omit<MailpitHeaderView, 'ReturnPath'> {
  ID: string;
  Read: boolean;
  Created: string;
  Username: string;
  Tags: string[];
  Size: number;
  Attachments: number;
  Snippet: string;
}

export interface MailpitList {
  total: number;
  unread: number;
  count: number;
  messages_count: number;
  messages_unread: number;
  start: number;
  tags: string[];
  messages: MailpitSummary[];
}

/** A message as it is read: the header view and its bodies. */
export interface MailpitMessage extends MailpitHeaderView, MailpitBodies {
  ID: string;
  ListUnsubscribe: { Header: string; Links: string[]; Errors: string; HeaderPost: string };
  Date: string;
  Tags: string[];
  Username: string;
  Size: number;
}
