/**
 * Types a browser shows as inert data, never as a document with scripts: a download of one keeps
 * its stored type. Every other type (HTML, SVG, XML, JavaScript, anything unknown) is served as
 * application/octet-stream, so that no browser renders a sender's file in the gateway's origin,
 * where the panel and its session live.
 */
export const INERT_DOWNLOAD_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/json',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'text/plain',
  'text/csv',
  'text/calendar',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/ogg',
  'video/mp4',
]);

/** The Content-Type a download is served with: the stored one when it is inert (see INERT_DOWNLOAD_TYPES), else application/octet-stream. */
export const downloadContentType = (storedType: string): string => {
  const type = storedType.trim().toLowerCase();
  return INERT_DOWNLOAD_TYPES.has(type) ? type : 'application/octet-stream';
};

// RFC 8187 attr-char: what may stand unencoded in filename*.
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;
// What the plain filename="…" keeps: printable ASCII without the quote, the backslash, % and the
// semicolon (legal in a quoted string, but a naive parser would take it for a parameter's end).
const QUOTED_SAFE = /[^\x20-\x7e]|["\\%;]/g;

/**
 * `Content-Disposition: attachment` with the file's name twice: `filename*=UTF-8''…` (RFC 6266 and
 * 8187, every byte outside attr-char percent-encoded) for browsers, and an ASCII `filename="…"`
 * for the rest. Nothing of the name reaches the header unencoded but printable ASCII, so no name
 * can end the header or add a parameter (CR, LF, quotes and semicolons are encoded or replaced).
 */
export function attachmentDisposition(filename: string): string {
  // Buffer.from writes a lone surrogate as U+FFFD, where encodeURIComponent would throw.
  const utf8 = Buffer.from(filename, 'utf8');
  let encoded = '';
  for (const byte of utf8) {
    const char = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  const fallback = filename.replace(QUOTED_SAFE, '_').trim() || 'attachment';
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded || 'attachment'}`;
}

/**
 * What a download answers with besides its bytes: saved as a file with its name, never rendered
 * (nosniff; a type a browser could run served as octet-stream; and, should a browser show it
 * anyway, a policy that loads and runs nothing in an opaque origin), kept by no shared cache.
 */
export const downloadHeaders = (file: { filename: string; content_type: string }, size: number): Record<string, string> => ({
  'Content-Type': downloadContentType(file.content_type),
  'Content-Length': String(size),
  'Content-Disposition': attachmentDisposition(file.filename),
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'private, no-store',
  'Referrer-Policy': 'no-referrer',
});
