import { attachmentDisposition, downloadContentType, downloadHeaders } from './attachment-download';

/** The filename* value decoded as a browser decodes it (RFC 8187). */
const decodedName = (disposition: string): string => {
  const match = /filename\*=UTF-8''([^;\s]*)$/.exec(disposition);
  if (!match) throw new Error(`no filename* in ${disposition}`);
  return decodeURIComponent(match[1]!);
};

describe('an attachment download', () => {
  it('is saved under its own name, a UTF-8 one percent-encoded in filename* with an ASCII stand-in for older clients', () => {
    expect(attachmentDisposition('invoice-4711.pdf')).toBe(`attachment; filename="invoice-4711.pdf"; filename*=UTF-8''invoice-4711.pdf`);
    const umlauts = attachmentDisposition('Überweisung März 2026.pdf');
    expect(umlauts).toBe(`attachment; filename="_berweisung M_rz 2026.pdf"; filename*=UTF-8''%C3%9Cberweisung%20M%C3%A4rz%202026.pdf`);
    expect(decodedName(umlauts)).toBe('Überweisung März 2026.pdf');
    expect(decodedName(attachmentDisposition('発注書 📎.xlsx'))).toBe('発注書 📎.xlsx');
  });

  it('keeps a hostile name inside its parameter: no line break, quote, semicolon or backslash reaches the header unencoded', () => {
    for (const name of [
      'a.txt\r\nSet-Cookie: session=stolen',
      'b"; filename="evil.html',
      "c.pdf; filename*=UTF-8''evil.html",
      'd\\".txt',
      'e%22.txt',
      '\u0000f\u007f.txt',
    ]) {
      const header = attachmentDisposition(name);
      expect([name, /[^\x20-\x7e]/.test(header)]).toEqual([name, false]);
      // Exactly the two parameters, whatever the name holds: one quoted string without quotes or semicolons, one of attr-chars and %XX.
      expect([name, header]).toEqual([
        name,
        expect.stringMatching(/^attachment; filename="[^";\\]*"; filename\*=UTF-8''(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})*$/),
      ]);
      expect(decodedName(header)).toBe(name);
    }
  });

  it('names a lone surrogate U+FFFD instead of failing, and an empty stand-in "attachment"', () => {
    expect(decodedName(attachmentDisposition('half\uD800.txt'))).toBe('half\uFFFD.txt');
    expect(attachmentDisposition('ü')).toBe(`attachment; filename="_"; filename*=UTF-8''%C3%BC`);
    expect(attachmentDisposition('')).toBe(`attachment; filename="attachment"; filename*=UTF-8''attachment`);
  });

  it('keeps an inert stored type, and serves anything a browser could render as a page or run as octet-stream', () => {
    expect(downloadContentType('application/pdf')).toBe('application/pdf');
    expect(downloadContentType('image/PNG')).toBe('image/png');
    expect(downloadContentType('text/csv')).toBe('text/csv');
    for (const risky of [
      'text/html',
      'application/xhtml+xml',
      'image/svg+xml',
      'text/xml',
      'application/xml',
      'text/javascript',
      'application/javascript',
      'text/css',
      'application/x-shockwave-flash',
      'multipart/x-mixed-replace',
      'application/x-unknown',
    ])
      expect([risky, downloadContentType(risky)]).toEqual([risky, 'application/octet-stream']);
  });

  it('is answered with nosniff, a policy that runs nothing, no shared caching, and its length', () => {
    expect(downloadHeaders({ filename: 'page.html', content_type: 'text/html' }, 42)).toEqual({
      'Content-Type': 'application/octet-stream',
      'Content-Length': '42',
      'Content-Disposition': `attachment; filename="page.html"; filename*=UTF-8''page.html`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-store',
      'Referrer-Policy': 'no-referrer',
    });
  });
});
