/** The inline parts the panel's email frame embeds: raster images a browser shows in an <img>, not too large to inline. */
export const FRAMEABLE_INLINE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const FRAMEABLE_INLINE_MAX_BYTES = 2 * 1024 * 1024;

/** Whether an attachment is an inline part the frame shows: a raster image with a content id, small enough. */
export const isFrameableInline = (a: { content_type: string; size: number; content_id?: string }): boolean =>
  a.content_id !== undefined &&
  (FRAMEABLE_INLINE_TYPES as readonly string[]).includes(a.content_type) &&
  a.size <= FRAMEABLE_INLINE_MAX_BYTES;

/** The content ids an HTML part refers to as `cid:` in a quoted attribute value. */
export const referencedContentIds = (html: string): Set<string> =>
  new Set([...html.matchAll(/(["'])cid:([^"'\s]+)\1/gi)].map((m) => decodeURIComponent(m[2]!)));

/**
 * The HTML with its `cid:` references to these parts as data: URLs, which the frame's policy
 * (img-src data:) shows and which load nothing from anywhere; a reference to any other part stays as it was.
 */
export function embedInlineParts(html: string, parts: Map<string, { contentType: string; bytes: Uint8Array }>): string {
  return html.replace(/(["'])cid:([^"'\s]+)\1/gi, (whole, quote: string, id: string) => {
    const part = parts.get(decodeURIComponent(id));
    return part ? `${quote}data:${part.contentType};base64,${Buffer.from(part.bytes).toString('base64')}${quote}` : whole;
  });
}
