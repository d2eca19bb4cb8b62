import { createHash } from 'node:crypto';
import { simpleParser, type Attachment } from 'mailparser';
import type { MailpitAttachment, MailpitBodies, MailpitHeaderView, MailpitList, MailpitMessage, MailpitSummary } from '@postbus/smtp';
import { decodeEncodedWords, headerMap, parseAddressList, withoutAngleBrackets } from './headers';
import type { Mailbox, MessageFilter, StoredMessage } from './ports';

/**
 * Mailpit's API v1 views of stored messages (the shapes are @postbus/smtp's): a summary and a
 * message are the header view (a message the body view too) and fields of their own, as the
 * builders below make them; the builders also set the order of the fields, Mailpit's.
 */

/** What the headers alone tell, decoded: enough for the list, the search and the summary. */
export type HeaderView = MailpitHeaderView;

/** What the full parse tells: the bodies, the attachments and the snippet. */
interface BodyView extends MailpitBodies {
  Snippet: string;
}

const SNIPPET_LENGTH = 250;

/** Mailpit's snippet: the text with whitespace collapsed, cut at 250 characters. */
function snippetOf(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length > SNIPPET_LENGTH ? `${collapsed.slice(0, SNIPPET_LENGTH)}...` : collapsed;
}

function attachmentOf(part: Attachment): MailpitAttachment {
  const digest = (algorithm: string) => createHash(algorithm).update(part.content).digest('hex');
  return {
    PartID: part.partId ?? '',
    FileName: part.filename ?? '',
    ContentType: part.contentType,
    ContentID: part.cid ?? '',
    Size: part.size,
    Checksums: { MD5: digest('md5'), SHA1: digest('sha1'), SHA256: digest('sha256') },
  };
}

/** The links of a List-Unsubscribe header: the URIs between angle brackets. */
const unsubscribeLinks = (header: string): string[] => [...header.matchAll(/<([^>]+)>/g)].map((match) => match[1]!.trim());

/**
 * Renders stored messages as Mailpit does. Header views are computed once per message; a full
 * parse (mailparser) happens only when a message is read or listed, and is cached: its small
 * results (snippet, attachment count) for as long as the message lives, the bodies for the most
 * recently read messages only, so a big mailbox is not held twice in memory.
 */
export class MailpitViews {
  private readonly headerViews = new WeakMap<StoredMessage, HeaderView>();
  private readonly digests = new WeakMap<StoredMessage, { snippet: string; attachments: number }>();
  private readonly bodies = new Map<StoredMessage, Promise<BodyView>>();

  constructor(
    private readonly mailbox: Mailbox,
    private readonly bodyCacheSize = 200,
  ) {}

  headersOf(message: StoredMessage): HeaderView {
    let view = this.headerViews.get(message);
    if (!view) {
      const { headers } = message;
      const to = parseAddressList(headers.to);
      const cc = parseAddressList(headers.cc);
      const bcc = parseAddressList(headers.bcc);
      // Like Mailpit, recipients of the envelope that no header names were Bcc recipients.
      const named = new Set([...to, ...cc, ...bcc].map((address) => address.Address.toLowerCase()));
      for (const rcpt of message.rcptTo) {
        if (!named.has(rcpt.toLowerCase())) {
          named.add(rcpt.toLowerCase());
          bcc.push({ Name: '', Address: rcpt });
        }
      }
      view = {
        MessageID: withoutAngleBrackets(headers.messageId),
        From: parseAddressList(headers.from)[0] ?? null,
        To: to,
        Cc: cc,
        Bcc: bcc,
        ReplyTo: parseAddressList(headers.replyTo),
        ReturnPath: withoutAngleBrackets(headers.returnPath) || message.mailFrom,
        Subject: decodeEncodedWords(headers.subject),
      };
      this.headerViews.set(message, view);
    }
    return view;
  }

  async list(start: number, limit: number, matches?: MessageFilter): Promise<MailpitList> {
    const page = this.mailbox.page(start, limit, matches);
    const messages = await Promise.all(page.messages.map((message) => this.summary(message)));
    return {
      total: this.mailbox.size,
      unread: this.mailbox.unreadCount,
      count: messages.length,
      messages_count: page.matched,
      messages_unread: page.matchedUnread,
      start,
      tags: [],
      messages,
    };
  }

  async summary(message: StoredMessage): Promise<MailpitSummary> {
    const digest = await this.digestOf(message);
    const { ReturnPath: _returnPath, MessageID, ...headers } = this.headersOf(message);
    return {
      ID: message.id,
      MessageID,
      Read: message.read,
      ...headers,
      Created: new Date(message.receivedAt).toISOString(),
      Username: '',
      Tags: [],
      Size: message.raw.length,
      Attachments: digest.attachments,
      Snippet: digest.snippet,
    };
  }

  async message(message: StoredMessage): Promise<MailpitMessage> {
    const { Snippet: _snippet, ...body } = await this.body(message);
    const allHeaders = headerMap(message.raw);
    const listUnsubscribe = allHeaders['List-Unsubscribe']?.[0] ?? '';
    const date = Date.parse(message.headers.date);
    return {
      ID: message.id,
      ...this.headersOf(message),
      ListUnsubscribe: {
        Header: listUnsubscribe,
        Links: unsubscribeLinks(listUnsubscribe),
        Errors: '',
        HeaderPost: allHeaders['List-Unsubscribe-Post']?.[0] ?? '',
      },
      Date: new Date(Number.isNaN(date) ? message.receivedAt : date).toISOString(),
      Tags: [],
      Username: '',
      Size: message.raw.length,
      ...body,
    };
  }

  private async digestOf(message: StoredMessage): Promise<{ snippet: string; attachments: number }> {
    const known = this.digests.get(message);
    if (known) return known;
    const body = await this.body(message);
    return { snippet: body.Snippet, attachments: body.Attachments.length };
  }

  private body(message: StoredMessage): Promise<BodyView> {
    const cached = this.bodies.get(message);
    if (cached) {
      // Most recently used last, so the oldest entry is the first to go.
      this.bodies.delete(message);
      this.bodies.set(message, cached);
      return cached;
    }
    const parsing = this.parse(message);
    this.bodies.set(message, parsing);
    parsing.catch(() => this.bodies.delete(message));
    while (this.bodies.size > this.bodyCacheSize) this.bodies.delete(this.bodies.keys().next().value!);
    return parsing;
  }

  private async parse(message: StoredMessage): Promise<BodyView> {
    const parsed = await simpleParser(message.raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
    const parts = parsed.attachments.map((part) => ({ related: part.related, view: attachmentOf(part) }));
    const text = parsed.text ?? '';
    const html = parsed.html || '';
    const view: BodyView = {
      Text: text,
      HTML: html,
      Inline: parts.filter((part) => part.related).map((part) => part.view),
      Attachments: parts.filter((part) => !part.related).map((part) => part.view),
      Snippet: snippetOf(text),
    };
    this.digests.set(message, { snippet: view.Snippet, attachments: view.Attachments.length });
    return view;
  }
}
