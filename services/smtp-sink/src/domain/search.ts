import type { MailAddress } from './headers';
import type { HeaderView } from './mailpit-views';
import type { MessageFilter, StoredMessage } from './ports';

/** Mailpit's cleanString: what both the indexed text and the search terms are reduced to. */
export function cleanText(text: string): string {
  return text
    .replace(/\uFEFF/g, ' ')
    .replace(/\r?\n|\t|[<>",;()]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

/** Splits a query on spaces, keeping "quoted phrases" together without their quotes, as Mailpit does. */
export function splitQuery(query: string): string[] {
  return (query.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).map((term) => term.replace(/"/g, ''));
}

const addressText = (addresses: MailAddress[]): string => cleanText(addresses.map((a) => `${a.Name} ${a.Address}`).join(' '));

const SIZE = /^(\d+(?:\.\d+)?)\s?(k|kb|m|mb)?$/;

function sizeInBytes(value: string): number | undefined {
  const match = SIZE.exec(value.toLowerCase());
  if (!match) return undefined;
  const unit = match[2]?.[0];
  return Math.floor(Number(match[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1));
}

/**
 * Compiles Mailpit's search syntax into a filter: every term must match. Supported: plain words
 * and "quoted phrases" (searched in the From, To, Cc, Bcc, Reply-To, Return-Path and Subject headers;
 * unlike Mailpit not in the body, which the sink does not parse on receive), `message-id:`, `from:`,
 * `to:`, `cc:`, `bcc:`, `reply-to:`, `addressed:`, `subject:`, `is:read`, `is:unread`, `after:`,
 * `before:`, `larger:`, `smaller:`, each negated by a leading `-` or `!`.
 */
export function compileSearch(query: string, headersOf: (message: StoredMessage) => HeaderView): MessageFilter {
  const searchText = new WeakMap<StoredMessage, string>();
  const textOf = (message: StoredMessage) => {
    let text = searchText.get(message);
    if (text === undefined) {
      const view = headersOf(message);
      text = cleanText(
        [
          addressText(view.From ? [view.From] : []),
          view.Subject,
          addressText([...view.To, ...view.Cc, ...view.Bcc, ...view.ReplyTo]),
          view.ReturnPath,
        ].join(' '),
      );
      searchText.set(message, text);
    }
    return text;
  };

  const filters: MessageFilter[] = [];
  for (let term of splitQuery(query)) {
    if (cleanText(term) === '') continue;
    let exclude = false;
    if (term.length > 1 && (term.startsWith('-') || term.startsWith('!'))) {
      exclude = true;
      term = term.slice(1);
    }
    if (!/[a-zA-Z0-9]/.test(term)) continue;
    const filter = termFilter(term, headersOf, textOf);
    if (filter) filters.push(exclude ? (message) => !filter(message) : filter);
  }
  return (message) => filters.every((filter) => filter(message));
}

function termFilter(
  term: string,
  headersOf: (message: StoredMessage) => HeaderView,
  textOf: (message: StoredMessage) => string,
): MessageFilter | undefined {
  const lower = term.toLowerCase();
  const prefix = /^([a-z-]+):/.exec(lower)?.[1];
  const value = prefix ? term.slice(prefix.length + 1) : term;
  const needle = cleanText(value);
  const addresses = (pick: (view: HeaderView) => MailAddress[]) => (message: StoredMessage) =>
    addressText(pick(headersOf(message))).includes(needle);

  switch (prefix ?? '') {
    case 'message-id':
      return (message) => headersOf(message).MessageID.toLowerCase().includes(needle);
    case 'subject':
      return (message) => headersOf(message).Subject.toLowerCase().includes(value.toLowerCase());
    case 'from':
      return addresses((view) => (view.From ? [view.From] : []));
    case 'to':
      return addresses((view) => view.To);
    case 'cc':
      return addresses((view) => view.Cc);
    case 'bcc':
      return addresses((view) => view.Bcc);
    case 'reply-to':
      return addresses((view) => view.ReplyTo);
    case 'addressed':
      return addresses((view) => [...(view.From ? [view.From] : []), ...view.To, ...view.Cc, ...view.Bcc, ...view.ReplyTo]);
    case 'is':
      if (needle === 'read') return (message) => message.read;
      if (needle === 'unread') return (message) => !message.read;
      break;
    case 'after':
    case 'before': {
      const time = Date.parse(value);
      if (Number.isNaN(time)) return undefined; // Mailpit ignores a date it cannot read
      return prefix === 'after' ? (message) => message.receivedAt >= time : (message) => message.receivedAt <= time;
    }
    case 'larger':
    case 'smaller': {
      const bytes = sizeInBytes(needle);
      if (bytes === undefined) break;
      return prefix === 'larger' ? (message) => message.raw.length > bytes : (message) => message.raw.length < bytes;
    }
    default:
      break;
  }
  const words = cleanText(term);
  return (message) => textOf(message).includes(words);
}
