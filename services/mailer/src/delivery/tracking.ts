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

const LINK = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi;

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
  let out = html;
  if (options.clicks) {
    const targets = [...html.matchAll(LINK)].map((m) => decodeAttribute(m[3]!));
    const links = await Promise.all(targets.map((url) => tokens.sign({ action: 'click', messageId, projectId, url })));
    let i = 0;
    out = out.replace(LINK, (_all, before: string, quote: string) => `${before}${quote}${baseUrl}/t/c/${links[i++]!}${quote}`);
  }
  if (options.opens) {
    const pixel = `<img src="${baseUrl}/t/o/${await tokens.sign({ action: 'open', messageId, projectId })}" width="1" height="1" alt="" style="display:none">`;
    out = /<\/body>/i.test(out) ? out.replace(/<\/body>/i, `${pixel}</body>`) : `${out}${pixel}`;
  }
  return out;
}
