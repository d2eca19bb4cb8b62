import { isSpace } from './characters';

/**
 * The field blocks of machine-readable report parts: RFC 3464 `message/delivery-status` (one
 * block for the message, then one per recipient) and RFC 5965 `message/feedback-report` (one
 * block). Each block is header-like: `Name: value` lines, continued by lines that start with
 * white space, and blocks are separated by blank lines.
 */
export type FieldBlock = ReadonlyMap<string, string>;

/** Reads the blocks of a report part; field names are lowercased, the first of a repeated field is kept. */
export function readFieldBlocks(text: string): FieldBlock[] {
  const blocks: FieldBlock[] = [];
  let block = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (block.size > 0) blocks.push(block);
      block = new Map();
      last = undefined;
    } else if (/^[ \t]/.test(line) && last !== undefined) {
      block.set(last, `${block.get(last)} ${line.trim()}`);
    } else {
      const colon = line.indexOf(':');
      if (colon <= 0) continue; // not a field: malformed reports are read as far as they go
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!block.has(name)) block.set(name, line.slice(colon + 1).trim());
      last = name;
    }
  }
  if (block.size > 0) blocks.push(block);
  return blocks;
}

/** The value of a typed field (`rfc822; a@b`, `dns; mx.example`, `smtp; 550 …`) without its type. */
export function untyped(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(';');
  const rest = (semicolon >= 0 ? value.slice(semicolon + 1) : value).trim();
  return rest === '' ? undefined : rest;
}

/** `[^\s<>@]`: what either side of an address is made of. */
const isAddressChar = (c: number): boolean => !isSpace(c) && c !== 0x3c && c !== 0x3e && c !== 0x40;

/**
 * An address as reports write it (`<a@b>`, `a@b`, `Name <a@b>`), lowercased; undefined when it is
 * not one. What `value.match(/<?([^\s<>@]+@[^\s<>@]+?)>?$/)?.[1]` finds, read in one pass instead
 * (that expression tries every start, each reading to the end: quadratic in a long value): the
 * domain runs from the last `@` to the end, or to a closing `>` that ends the value, and the local
 * part back from that `@` as far as its characters go.
 */
export function bareAddress(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = value.lastIndexOf('@');
  if (at < 0) return undefined;
  const end = value.endsWith('>') ? value.length - 1 : value.length;
  if (end <= at + 1) return undefined;
  for (let i = at + 1; i < end; i++) if (!isAddressChar(value.charCodeAt(i))) return undefined;
  let start = at;
  while (start > 0 && isAddressChar(value.charCodeAt(start - 1))) start--;
  return start === at ? undefined : value.slice(start, end).toLowerCase();
}
