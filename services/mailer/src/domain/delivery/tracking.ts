import type { TrackingTokens } from '@postbus/crypto';

export interface TrackingOptions {
  tokens: TrackingTokens;
  messageId: string;
  projectId: string;
  /** Origin of the tracking links, e.g. https://links.example.com */
  baseUrl: string;
  opens: boolean;
  clicks: boolean;
}

const ANCHOR = /<a\b/gi;
const HREF = /\bhref\s*=\s*(["'])(https?:\/\/[^"']+)\1/i;

/**
 * Where the http(s) hrefs of the anchors are, in one pass: each `<a` tag is cut at its `>` before
 * the href is looked for inside it, so that hostile HTML (thousands of unclosed `<a`) costs time
 * in proportion to its length, not its square as one regex over the whole document did.
 */
function hrefsOf(html: string): Array<{ start: number; end: number; url: string }> {
  const found: Array<{ start: number; end: number; url: string }> = [];
  ANCHOR.lastIndex = 0;
  for (let m = ANCHOR.exec(html); m; m = ANCHOR.exec(html)) {
    const close = html.indexOf('>', m.index);
    if (close < 0) break; // no tag closes after this: no complete anchor is left
    const tag = html.slice(m.index, close);
    const href = HREF.exec(tag);
    if (href) {
      const start = m.index + href.index + href[0].length - 1 - href[2]!.length;
      found.push({ start, end: start + href[2]!.length, url: href[2]! });
    }
    ANCHOR.lastIndex = close + 1;
  }
  return found;
}

const decodeAttribute = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * Rewrites http(s) links of the HTML part to go through /t/c (each token seals its one target
 * URL) and adds the open pixel, as the email asks. The text part is left alone: plain-text
 * readers see the real links.
 */
export async function addTracking(html: string, options: TrackingOptions): Promise<string> {
  const { tokens, messageId, projectId, baseUrl } = options;
  const host = new URL(baseUrl).hostname; // the edge answers these links on the tracking domain only
  let out = html;
  if (options.clicks) {
    const hrefs = hrefsOf(html);
    const links = await Promise.all(
      hrefs.map((h) => tokens.sign({ action: 'click', messageId, projectId, host, url: decodeAttribute(h.url) })),
    );
    const parts: string[] = [];
    let at = 0;
    hrefs.forEach((h, i) => {
      parts.push(html.slice(at, h.start), `${baseUrl}/t/c/${links[i]!}`);
      at = h.end;
    });
    parts.push(html.slice(at));
    out = parts.join('');
  }
  if (options.opens) {
    const pixel = `<img src="${baseUrl}/t/o/${await tokens.sign({ action: 'open', messageId, projectId, host })}" width="1" height="1" alt="" style="display:none">`;
    out = /<\/body>/i.test(out) ? out.replace(/<\/body>/i, `${pixel}</body>`) : `${out}${pixel}`;
  }
  return out;
}
