import { Tokenizer } from 'htmlparser2';

/** Attributes a reader's click (or a form) navigates to: only web, mail and phone links. */
const NAVIGATION = new Set(['href', 'xlink:href', 'action', 'formaction']);
const NAVIGATION_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/** Attributes a mail client loads: web resources, inline parts (cid:) and embedded raster images. */
const RESOURCE = new Set(['src', 'background', 'poster', 'lowsrc', 'dynsrc']);
const RESOURCE_SCHEMES = new Set(['http', 'https', 'cid']);
const RASTER_IMAGE = /^data:image\/(?:png|gif|jpe?g|webp)[;,]/;

/**
 * What a URL parser strips or ignores: leading and trailing controls and spaces, tabs and newlines
 * anywhere. Removing every control and blank (Unicode ones too) is stricter than any parser, so a
 * scheme split by one ("java\tscript:") is still recognised.
 */
// eslint-disable-next-line no-control-regex
const IGNORED = /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200f\u2028\u2029\u205f\u3000\ufeff]/g;

type Kind = 'navigation' | 'resource';

/**
 * Whether a (decoded) attribute value may stay. A value is relative, and safe, when no `:` comes
 * before its first `/`, `?` or `#`; otherwise what precedes the colon is its scheme, which must be
 * allowed. A `&` in that position is a character reference the parser left alone (browsers decode
 * some that HTML parsers do not, e.g. `&#106` without its semicolon): refused, whatever it hides.
 */
export function isSafeUrl(value: string, kind: Kind): boolean {
  const url = value.replace(IGNORED, '');
  const head = /^[^/?#]*/.exec(url)![0];
  const colon = head.indexOf(':');
  if (colon < 0) return !head.includes('&');
  const scheme = head.slice(0, colon).toLowerCase();
  if (kind === 'navigation') return NAVIGATION_SCHEMES.has(scheme);
  return RESOURCE_SCHEMES.has(scheme) || RASTER_IMAGE.test(url.toLowerCase());
}

/** Each candidate of a srcset ("url 2x, url 480w") is a resource. */
const isSafeSrcset = (value: string) =>
  value.split(',').every((candidate) => {
    const url = candidate.trim().split(/\s+/)[0] ?? '';
    return url === '' || isSafeUrl(url, 'resource');
  });

function kindOf(tag: string, attribute: string): Kind | 'srcset' | undefined {
  if (NAVIGATION.has(attribute)) return 'navigation';
  if (RESOURCE.has(attribute)) return 'resource';
  if (attribute === 'srcset') return 'srcset';
  if (attribute === 'data' && tag === 'object') return 'resource';
  return undefined;
}

/**
 * Every place the HTML could hold a URL attribute: one of their names (also inside longer ones:
 * xlink:href, formaction, lowsrc, srcset), blanks, `=`, blanks and maybe a quote. An attribute's
 * name and `=` are never encoded, so no real one escapes this; text that merely looks like one
 * only sends the HTML to the full pass.
 */
const URL_ATTRIBUTE = /(?:href|src|action|background|poster|data)\s*=\s*["']?/gi;

/**
 * Whether every URL attribute the HTML could hold plainly starts with http:// or https:// (what
 * most mail holds, links and images): then nothing needs the full pass, which costs ≈ 10 µs a KB.
 */
function onlyWebUrls(html: string): boolean {
  URL_ATTRIBUTE.lastIndex = 0;
  for (let m = URL_ATTRIBUTE.exec(html); m; m = URL_ATTRIBUTE.exec(html)) {
    const value = html.slice(m.index + m[0].length, m.index + m[0].length + 8).toLowerCase();
    if (!value.startsWith('https://') && !value.startsWith('http://')) return false;
  }
  return true;
}

interface Replacement {
  start: number;
  end: number;
  with: string;
}

const QUOTED = new Set([2, 3]); // QuoteType.Single, QuoteType.Double
const NO_VALUE = 0; // QuoteType.NoValue

/**
 * The attribute values of `html` (from `offset` on) that must go: links whose scheme could run
 * script or leave the mail's safe schemes (javascript:, vbscript:, data:text/html, …). Outlook also
 * reads the markup of conditional comments (`<!--[if mso]>…<![endif]-->`): they are looked into too.
 */
function unsafeValues(html: string, from: number, to: number, found: Replacement[]): void {
  let tag = '';
  let name = '';
  let nameEnd = 0;
  let value = '';
  const noop = () => undefined;
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname: (start, end) => {
        tag = html.slice(from + start, from + end).toLowerCase();
      },
      onattribname: (start, end) => {
        name = html.slice(from + start, from + end).toLowerCase();
        nameEnd = from + end;
        value = '';
      },
      onattribdata: (start, end) => {
        value += html.slice(from + start, from + end);
      },
      onattribentity: (codepoint) => {
        value += String.fromCodePoint(codepoint);
      },
      onattribend: (quoteType, endIndex) => {
        const quote: number = quoteType;
        const kind = kindOf(tag, name);
        if (!kind || quote === NO_VALUE) return;
        if (kind === 'srcset' ? isSafeSrcset(value) : isSafeUrl(value, kind)) return;
        // The value starts after the `=` (and its quote); the tokenizer says where it ends.
        let start = html.indexOf('=', nameEnd) + 1;
        while (/\s/.test(html[start] ?? '')) start++;
        const quoted = QUOTED.has(quote);
        if (quoted) start++;
        const safe = kind === 'navigation' ? '#' : '';
        found.push({ start, end: from + endIndex, with: quoted ? safe : `"${safe}"` });
      },
      oncomment: (start, end, endOffset) => {
        if (html.startsWith('[if', from + start)) unsafeValues(html, from + start, from + end - endOffset, found);
      },
      oncdata: noop,
      onclosetag: noop,
      ondeclaration: noop,
      onend: noop,
      onopentagend: noop,
      onprocessinginstruction: noop,
      onselfclosingtag: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  tokenizer.write(html.slice(from, to));
  tokenizer.end();
}

/**
 * Rendered HTML with every link and resource URL restricted to safe schemes: an `href` (or form
 * action) to http(s), mailto and tel, a `src` (background, poster, srcset) to http(s), cid and
 * embedded PNG, GIF, JPEG or WebP; relative URLs stay. Any other value — `javascript:`, however
 * cased, entity-encoded or split by blanks, `vbscript:`, `data:` (but those images) — becomes `#`
 * (links) or empty (resources). Handlebars escapes values for HTML, not for what a URL may do: a
 * `javascript:` URL in `data` would otherwise reach the reader's mail client as a working link.
 * The rest of the HTML is left exactly as it was.
 */
export function guardUrls(html: string): string {
  if (onlyWebUrls(html)) return html;
  const found: Replacement[] = [];
  unsafeValues(html, 0, html.length, found);
  if (found.length === 0) return html;
  found.sort((a, b) => a.start - b.start);
  const out: string[] = [];
  let at = 0;
  for (const r of found) {
    if (r.start < at) continue; // the same value seen inside and outside a conditional comment
    out.push(html.slice(at, r.start), r.with);
    at = r.end;
  }
  out.push(html.slice(at));
  return out.join('');
}
