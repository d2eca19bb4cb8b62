import { MESSAGE_CONTENT_MAX_HTML_BYTES } from '@postbus/contracts';
import type { ContentDoc } from './message-records';

/** What a deliverer rendered, before it is capped for keeping. */
export interface RenderedContent {
  subject: string;
  html: string;
  text: string;
}

/** Cuts a string to at most `maxBytes` of UTF-8, never inside a character. */
function cutUtf8(value: string, maxBytes: number): { value: string; cut: boolean } {
  if (Buffer.byteLength(value) <= maxBytes) return { value, cut: false };
  // A character split by the cut decodes as U+FFFD at the end: drop it.
  return {
    value: Buffer.from(value)
      .subarray(0, maxBytes)
      .toString()
      .replace(/\uFFFD+$/, ''),
    cut: true,
  };
}

/** The document kept of a message's rendered email, its HTML and text capped. */
export function contentDoc(messageId: string, rendered: RenderedContent, maxBytes = MESSAGE_CONTENT_MAX_HTML_BYTES): ContentDoc {
  const html = cutUtf8(rendered.html, maxBytes);
  const text = cutUtf8(rendered.text, maxBytes);
  return { _id: messageId, subject: rendered.subject, html: html.value, text: text.value, truncated: html.cut || text.cut };
}
