import { random } from '../../test/adversarial-mail';
import { noticeRecipient, noticeText, plainAddress } from './notice-text';
import { bareAddress } from './report-fields';

/**
 * The scanners that replaced the report reader's backtracking expressions find exactly what those
 * expressions found: compared on seeded random text made of the pieces each one tells apart
 * (short, where the expressions are fast).
 */
const expressions = {
  noticeText: (text: string): string =>
    text.split(
      /^\s*(?:-{2,}\s*(?:Below this line is a copy|Original message|Original Message|Forwarded message)|Return-Path:|Received:)/im,
    )[0] ?? text,
  plainAddress: (text: string): string | undefined => text.match(/\b([^\s<>@:;,"]+@[a-z0-9.-]+\.[a-z]{2,})\b/i)?.[1],
  noticeRecipient: (text: string): string | undefined =>
    text.match(/<([^\s<>@]+@[^\s<>@]+)>/)?.[1] ?? text.match(/\b([^\s<>@:;,"]+@[a-z0-9.-]+\.[a-z]{2,})\b/i)?.[1],
  bareAddress: (value: string): string | undefined => value.match(/<?([^\s<>@]+@[^\s<>@]+?)>?$/)?.[1]?.toLowerCase(),
};
const scanners: Record<keyof typeof expressions, (text: string) => string | undefined> = {
  noticeText,
  plainAddress,
  noticeRecipient,
  bareAddress,
};

// Letters (and the two that fold to ASCII only with the u flag), digits, word and address
// punctuation, every kind of white space and line break, and the words a quote starts with.
const pieces = [
  'a', 'Z', 'k', '\u212a', '\u017f', '\u0130', 'é', '_', '1', '.', '..', '-', '--', '---', '@', '@', '<', '>', ':', ';', ',', '"',
  ' ', '\t', '\n', '\r', '\r\n', '\u00a0', '\u2028', '\u2029', '\ufeff', '\v',
  'Return-Path:', 'RECEIVED:', 'received', 'Original message', 'ORIGINAL MESSAGE', 'Below this line is a copy', 'Forwarded message',
  'gone', 'x.com', '.co', '.c', 'b.example', 'dest.test',
]; // prettier-ignore

const sample = (next: () => number): string => {
  let text = '';
  for (let length = Math.floor(next() * 16); length > 0; length--) text += pieces[Math.floor(next() * pieces.length)]!;
  return text;
};

describe('the linear scanners and the expressions they replace', () => {
  it.each(Object.keys(expressions) as Array<keyof typeof expressions>)('%s finds the same in 20,000 random texts', (name) => {
    const next = random(name.length * 104729);
    const differences: Array<{ text: string; scanned: string | undefined; matched: string | undefined }> = [];
    let found = 0;
    for (let round = 0; round < 20_000; round++) {
      const text = sample(next);
      const matched = expressions[name](text);
      const scanned = scanners[name](text);
      if (matched !== undefined && matched !== text) found++;
      if (scanned !== matched && differences.length < 5) differences.push({ text, scanned, matched });
    }
    expect(differences).toEqual([]);
    expect(found).toBeGreaterThan(50); // the texts exercise what each one looks for
  });

  it.each([
    ['noticeText', '550 unknown\r\n\r\n  \r\n  ------ Original message ------\r\nx'],
    ['noticeText', '550 unknown\n\u2028Received: from x'],
    ['noticeText', 'a\n -- \n\tForwarded message'],
    ['noticeText', 'x\u00a0\nreturn-path: <a@b>'],
    ['noticeText', '-Return-Path:'],
    ['plainAddress', 'mail to a.b-c+d@sub.example.org. failed'],
    ['plainAddress', 'x_@a.bc_ y@a.bc'],
    ['plainAddress', 'é@a.com ,b@c.de1 c@d.ef'],
    ['noticeRecipient', 'to <Ann@Example.COM>: 550'],
    ['bareAddress', 'Ann <ann@example.com>'],
    ['bareAddress', 'rfc822;<a@b>>'],
    ['bareAddress', '<a@b> x'],
  ] as Array<[keyof typeof expressions, string]>)('%s of %j', (name, text) => {
    expect(scanners[name](text)).toBe(expressions[name](text));
  });
});
