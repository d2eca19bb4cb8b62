import type { HeaderField } from './submitted-mail';

/** The send options a message's control headers set: read, and never delivered (X-Postbus-* is reserved). */
export interface ControlOptions {
  tags?: string[];
  metadata?: Record<string, string>;
  send_at?: string;
  track_opens?: boolean;
  track_clicks?: boolean;
  /** The Idempotency-Key of the content send. */
  idempotencyKey?: string;
}

/** The control headers, by their lower-case names. */
export const CONTROL_HEADERS = {
  tags: 'x-postbus-tags',
  metadata: 'x-postbus-metadata',
  sendAt: 'x-postbus-send-at',
  idempotencyKey: 'x-postbus-idempotency-key',
  track: 'x-postbus-track',
} as const;

/** A control header that says nothing Postbus can use: the message is refused, naming it. */
export class ControlHeaderError extends Error {
  constructor(
    readonly header: string,
    problem: string,
  ) {
    super(`${header}: ${problem}`);
    this.name = 'ControlHeaderError';
  }
}

/** ISO 8601 date and time with seconds optional and a time zone required (a time without one is ambiguous). */
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** An ISO 8601 date-time with a time zone, as RFC 3339 in UTC (what send_at takes). */
export function rfc3339Of(value: string): string | undefined {
  const match = ISO_DATE_TIME.exec(value.trim());
  if (!match) return undefined;
  const [, date, time, zone] = match as unknown as [string, string, string, string];
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const at = new Date(`${date}T${time}${offset}`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

const TRACK_WORDS = new Set(['opens', 'clicks', 'none']);

/**
 * The send options of a message's control headers: X-Postbus-Tags (comma-separated; the headers
 * add up when repeated), X-Postbus-Metadata (a JSON object of strings), X-Postbus-Send-At
 * (ISO 8601 with a time zone), X-Postbus-Idempotency-Key and X-Postbus-Track (`opens`, `clicks`,
 * both comma-separated, or `none`). Without X-Postbus-Track the project's tracking applies. Throws a
 * ControlHeaderError for a header whose value cannot be used; each value's own limits (a tag's
 * characters, the metadata's sizes) are the content send's to check.
 */
export function readControlHeaders(headers: HeaderField[]): ControlOptions {
  const values = (name: string) => headers.filter((h) => h.name.toLowerCase() === name).map((h) => h.value.trim());
  const single = (name: string, label: string) => {
    const found = values(name);
    if (found.length > 1) throw new ControlHeaderError(label, 'given more than once');
    return found[0];
  };
  const options: ControlOptions = {};

  const tags = [
    ...new Set(
      values(CONTROL_HEADERS.tags)
        .flatMap((value) => value.split(','))
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ''),
    ),
  ];
  if (tags.length > 0) options.tags = tags;

  const metadata = single(CONTROL_HEADERS.metadata, 'X-Postbus-Metadata');
  if (metadata !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(metadata);
    } catch {
      throw new ControlHeaderError('X-Postbus-Metadata', 'not JSON; it is a JSON object of strings, e.g. {"order_id":"4711"}');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new ControlHeaderError('X-Postbus-Metadata', 'not a JSON object; it is a JSON object of strings, e.g. {"order_id":"4711"}');
    const notString = Object.entries(parsed).find(([, value]) => typeof value !== 'string');
    if (notString) throw new ControlHeaderError('X-Postbus-Metadata', `the value of "${notString[0]}" is not a string`);
    options.metadata = parsed as Record<string, string>;
  }

  const sendAt = single(CONTROL_HEADERS.sendAt, 'X-Postbus-Send-At');
  if (sendAt !== undefined) {
    const at = rfc3339Of(sendAt);
    if (!at) throw new ControlHeaderError('X-Postbus-Send-At', 'not an ISO 8601 date and time with a time zone, e.g. 2030-01-01T09:00:00Z');
    options.send_at = at;
  }

  const idempotencyKey = single(CONTROL_HEADERS.idempotencyKey, 'X-Postbus-Idempotency-Key');
  if (idempotencyKey !== undefined) {
    if (!/^[\x20-\x7e]{1,255}$/.test(idempotencyKey))
      throw new ControlHeaderError('X-Postbus-Idempotency-Key', 'not 1 to 255 printable ASCII characters');
    options.idempotencyKey = idempotencyKey;
  }

  const track = single(CONTROL_HEADERS.track, 'X-Postbus-Track');
  if (track !== undefined) {
    const words = new Set(
      track
        .toLowerCase()
        .split(',')
        .map((word) => word.trim())
        .filter((word) => word !== ''),
    );
    const unknown = [...words].filter((word) => !TRACK_WORDS.has(word));
    if (unknown.length > 0 || words.size === 0 || (words.has('none') && words.size > 1))
      throw new ControlHeaderError('X-Postbus-Track', 'is `opens`, `clicks`, `opens,clicks` or `none`');
    options.track_opens = words.has('opens');
    options.track_clicks = words.has('clicks');
  }
  return options;
}
