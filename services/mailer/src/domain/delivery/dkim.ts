import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';

/** Headers covered by the signature when present (RFC 6376 §5.4.1, plus the one-click unsubscribe pair of RFC 8058). */
const SIGNED_HEADERS = [
  'from',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'to',
  'cc',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'list-unsubscribe',
  'list-unsubscribe-post',
];

export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: KeyObject;
}

export const dkimKey = (domain: string, selector: string, privateKeyPem: string): DkimKey => ({
  domain,
  selector,
  privateKey: createPrivateKey(privateKeyPem),
});

/** Relaxed header canonicalization (RFC 6376 §3.4.2) of one unfolded "Name: value" field. */
const relaxedHeader = (name: string, value: string): string =>
  `${name.toLowerCase()}:${value
    .replace(/\r?\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()}`;

/** Relaxed body canonicalization (RFC 6376 §3.4.4). */
function relaxedBody(body: string): string {
  const lines = body.split('\r\n').map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\r\n')}\r\n`;
}

/** The header fields of a message, in order, each with its name and unfolded raw value. */
function parseHeaders(head: string): Array<{ name: string; value: string }> {
  const fields: Array<{ name: string; value: string }> = [];
  for (const line of head.split('\r\n')) {
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1]!.value += `\r\n${line}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) fields.push({ name: line.slice(0, colon), value: line.slice(colon + 1) });
    }
  }
  return fields;
}

const signAsync = (data: Buffer, key: KeyObject): Promise<Buffer> =>
  new Promise((resolve, reject) => sign('sha256', data, key, (error, signature) => (error ? reject(error) : resolve(signature))));

/**
 * Signs a composed message with DKIM (rsa-sha256, relaxed/relaxed) and returns it with the
 * DKIM-Signature field first and CRLF line ends throughout. The RSA operation runs on libuv's threadpool (async crypto.sign),
 * so signing does not hold the event loop the way nodemailer's built-in synchronous signer does.
 */
export async function dkimSign(message: Buffer, key: DkimKey): Promise<Buffer> {
  // SMTP puts CRLF at every line end on the wire; sign exactly those bytes.
  const text = message.toString('latin1').replace(/\r?\n/g, '\r\n');
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const body = split === -1 ? '' : text.slice(split + 4);
  const bodyHash = createHash('sha256').update(relaxedBody(body), 'latin1').digest('base64');

  // Sign the last instance of each listed field (RFC 6376 §5.4.2), in list order.
  const fields = parseHeaders(head);
  const signed: string[] = [];
  const canonical: string[] = [];
  for (const name of SIGNED_HEADERS) {
    const field = [...fields].reverse().find((f) => f.name.toLowerCase() === name);
    if (!field) continue;
    signed.push(name);
    canonical.push(relaxedHeader(field.name, field.value));
  }
  // Folded between tags; the signed form is this very field canonicalized with an empty b=.
  const value =
    ` v=1; a=rsa-sha256; c=relaxed/relaxed; d=${key.domain}; s=${key.selector}; t=${Math.floor(Date.now() / 1000)};` +
    `\r\n\th=${signed.join(':')};\r\n\tbh=${bodyHash};\r\n\tb=`;
  canonical.push(relaxedHeader('DKIM-Signature', value));
  const signature = (await signAsync(Buffer.from(canonical.join('\r\n'), 'latin1'), key.privateKey)).toString('base64');
  const field = `DKIM-Signature:${value}${signature.replace(/(.{72})(?=.)/g, '$1\r\n\t')}`;
  return Buffer.from(`${field}\r\n${text}`, 'latin1');
}
