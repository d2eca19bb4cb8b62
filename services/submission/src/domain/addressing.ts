/** Who one content send goes to, and how the mail shows them: its `to` (the first is the message's recipient), `cc` and `bcc`. */
export interface Addressing {
  to: string[];
  cc: string[];
  bcc: string[];
}

const keyOf = (address: string) => address.toLowerCase();

/**
 * The content sends one submitted message makes, from its envelope and its To and Cc headers.
 *
 * The envelope decides who receives it: its recipients (RCPT TO), each once. The headers decide
 * how each is shown: one named in To is a `to` (in the To header's order), one named in Cc a `cc`,
 * one named in neither a `bcc`. An address the headers name that is not an envelope recipient is
 * not sent to (SMTP's own rule: the headers are display, the envelope is delivery).
 *
 * The message's recipient (the content send's first `to`) is the first envelope recipient named
 * in To. Without one:
 * - the first named in Cc is the recipient (from then on shown in To: it was shown to everyone in Cc
 *   already, so nothing private is disclosed);
 * - with none named in either, a lone recipient is the recipient;
 * - with several, each becomes a send of its own, to that recipient alone: Postbus writes the
 *   recipient into the To header of every copy of a message, so making one of them the recipient
 *   of the others' mail would show their address to every other blind recipient.
 */
export function addressingOf(rcptTo: string[], toHeader: string[], ccHeader: string[]): Addressing[] {
  const envelope = new Map<string, string>();
  for (const address of rcptTo) if (!envelope.has(keyOf(address))) envelope.set(keyOf(address), address);
  const shown = new Set<string>();
  const named = (header: string[]) =>
    header.flatMap((address) => {
      const key = keyOf(address);
      const recipient = envelope.get(key);
      if (recipient === undefined || shown.has(key)) return [];
      shown.add(key);
      return [recipient];
    });
  const to = named(toHeader);
  const cc = named(ccHeader);
  const bcc = [...envelope].filter(([key]) => !shown.has(key)).map(([, address]) => address);
  if (to.length > 0) return [{ to, cc, bcc }];
  if (cc.length > 0) return [{ to: cc.slice(0, 1), cc: cc.slice(1), bcc }];
  if (bcc.length <= 1) return [{ to: bcc, cc: [], bcc: [] }];
  return bcc.map((address) => ({ to: [address], cc: [], bcc: [] }));
}
