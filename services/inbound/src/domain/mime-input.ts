/**
 * The longest run of spaces and tabs handed to the MIME parser. Reports align columns with a few
 * (Postfix indents by 19 at most); a longer run says nothing more.
 */
export const MAX_BLANK_RUN = 32;

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * A mail as the MIME parser is given it: each bare CR (one not followed by LF) made a space, and
 * each run of spaces and tabs cut to MAX_BLANK_RUN. The parser's dependencies take time quadratic
 * in the length of either: @zone-eu/mailsplit 5.4.19 trims a header block with `/[\r\n]+$/`,
 * which reads a run of line breaks broken by bare CRs again from each of its positions (64 KiB
 * of them in a header: 10 s), and libqp 2.1.2 drops a quoted-printable line's trailing white space
 * with `/[\t ]+$/gm`, which does the same over a run of spaces that ends no line (32 KiB: 8 s).
 * Both are fixed upstream (mailsplit 5.4.30, libqp 2.1.3, in mailparser 3.14.2); with runs this
 * short they cost the parser microseconds either way. Neither changes what a report says: RFC
 * 5322 allows no bare CR, and libmime already reads one in a header as a space.
 */
export function mimeInput(raw: Buffer): Buffer {
  let out: Buffer | undefined;
  let length = 0;
  let blanks = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!;
    const c = byte === CR && raw[i + 1] !== LF ? SPACE : byte;
    blanks = c === SPACE || c === TAB ? blanks + 1 : 0;
    const kept = blanks <= MAX_BLANK_RUN;
    if (!out) {
      if (kept && c === byte) continue;
      out = Buffer.allocUnsafe(raw.length);
      raw.copy(out, 0, 0, i);
      length = i;
    }
    if (kept) out[length++] = c;
  }
  return out ? out.subarray(0, length) : raw;
}
