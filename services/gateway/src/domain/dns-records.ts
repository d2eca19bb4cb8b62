import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { returnPathDomainOf } from '@postbus/contracts';

const generateRsa = promisify(generateKeyPair);

export type RecordPurpose = 'spf' | 'dkim' | 'dmarc' | 'tracking' | 'ownership' | 'return_path_mx' | 'return_path_spf';
export type RecordType = 'TXT' | 'CNAME' | 'MX';

/** A DNS record the client must publish for a sender or tracking domain. */
export interface DnsRecord {
  purpose: RecordPurpose;
  type: RecordType;
  name: string;
  value: string;
  /**
   * SPF and DKIM must verify; DMARC is recommended; ownership is required for a tracking domain, and
   * for a sender domain when another client has it too. The return-path records are not required:
   * without them the domain sends, but its bounces and complaints go unread.
   */
  required: boolean;
}

export interface RecordCheck {
  purpose: RecordPurpose;
  type: RecordType;
  name: string;
  expected: string;
  found: string[];
  ok: boolean;
  required: boolean;
  detail: string;
}

export interface DkimKey {
  selector: string;
  /** base64 DER SubjectPublicKeyInfo, as DKIM's p= tag wants it. */
  publicKey: string;
  privateKeyPem: string;
}

/** A fresh RSA-2048 DKIM key; the selector names the month, so a rotated key gets a new one. */
export async function generateDkimKey(now = new Date()): Promise<DkimKey> {
  const { publicKey, privateKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const selector = `pb${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  return { selector, publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}

/**
 * The records of a sender domain's return-path domain (`pb-bounces.<domain>`), where the envelope
 * sender of its mail lives: an MX to the inbound service, so that bounces and complaints reach it,
 * and an SPF record, since SPF checks the envelope sender's domain. Relaxed DMARC alignment holds:
 * the return-path domain is under the From domain.
 */
export const returnPathRecords = (domain: string, inboundMxHost: string, spfInclude: string): DnsRecord[] => [
  { purpose: 'return_path_mx', type: 'MX', name: returnPathDomainOf(domain), value: `10 ${inboundMxHost}`, required: false },
  {
    purpose: 'return_path_spf',
    type: 'TXT',
    name: returnPathDomainOf(domain),
    value: `v=spf1 include:${spfInclude} ~all`,
    required: false,
  },
];

/** The records to publish: SPF including the sending service, the DKIM key, a DMARC policy and the return-path domain's MX and SPF. */
export function requiredRecords(
  domain: string,
  selector: string,
  publicKey: string,
  spfInclude: string,
  inboundMxHost: string,
): DnsRecord[] {
  return [
    { purpose: 'spf', type: 'TXT', name: domain, value: `v=spf1 include:${spfInclude} ~all`, required: true },
    { purpose: 'dkim', type: 'TXT', name: `${selector}._domainkey.${domain}`, value: `v=DKIM1; k=rsa; p=${publicKey}`, required: true },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain}`, value: `v=DMARC1; p=none; rua=mailto:dmarc@${domain}`, required: false },
    ...returnPathRecords(domain, inboundMxHost, spfInclude),
  ];
}

/**
 * The key of a record's answers in the map checkRecords reads: its name, and for an MX its type
 * too (the return-path domain has an MX and a TXT record under one name; no other name has two types).
 */
export const answerKey = (record: { name: string; type: RecordType }): string => (record.type === 'MX' ? `MX ${record.name}` : record.name);

/**
 * A tracking domain is a CNAME to the service's tracking host. Every client's CNAME looks the same,
 * so it proves nothing about who controls the name: a tracking domain always needs its ownership
 * record as well (see ownershipRequired).
 */
export const trackingRecords = (domain: string, trackingHost: string): DnsRecord[] => [
  { purpose: 'tracking', type: 'CNAME', name: domain, value: trackingHost, required: true },
];

/**
 * The proof that a client controls a domain: a TXT record with the client's own token, under a name
 * of its own (the SPF record stays alone at the domain's name, a CNAME at the tracking domain's).
 * See ownershipRequired for when it must verify.
 */
export const ownershipRecord = (domain: string, token: string, required: boolean): DnsRecord => ({
  purpose: 'ownership',
  type: 'TXT',
  name: `_postbus.${domain}`,
  value: `postbus-verification=${token}`,
  required,
});

/**
 * Whether a domain verifies only with its client's ownership token. A sender domain's DKIM record
 * carries a key of its own, which only whoever controls the domain can publish, so the first client
 * to add it needs no token; a later one does, or it would verify on the first one's records. A
 * tracking domain's only other record, the CNAME to the shared tracking host, is the same for every
 * client: without the token, whoever added the name first would be verified by its owner's CNAME.
 */
export const ownershipRequired = (kind: 'sender' | 'tracking', contested: boolean): boolean => kind === 'tracking' || contested;

const hostname = (value: string) => value.toLowerCase().replace(/\.$/, '');

const compact = (value: string) => value.replace(/\s+/g, '');
const dkimKeyOf = (value: string) => /(?:^|;)\s*p=([^;]*)/.exec(value)?.[1]?.replace(/\s+/g, '');

const UNREAD = 'bounces and complaints about this domain’s mail go unread until it is published (the domain still sends).';

/** The SPF check of a domain's own record or of its return-path domain's. */
function checkSpf(base: Omit<RecordCheck, 'found' | 'ok' | 'detail'>, all: string[], spfInclude: string, returnPath: boolean): RecordCheck {
  const found = all.filter((v) => /^v=spf1(\s|$)/i.test(v.trim()));
  const where = returnPath ? ' for the return-path domain' : '';
  if (found.length === 0) return { ...base, found, ok: false, detail: `No SPF record (TXT starting with v=spf1) was found${where}.` };
  if (found.length > 1) return { ...base, found, ok: false, detail: 'There is more than one SPF record; merge them into one.' };
  const includes = found[0]!.split(/\s+/).some((term) => term.toLowerCase() === `include:${spfInclude}`.toLowerCase());
  return includes
    ? { ...base, found, ok: true, detail: `The SPF record${where} includes the sending service.` }
    : { ...base, found, ok: false, detail: `The SPF record${where} does not include include:${spfInclude}.` };
}

/** Compares what DNS answered (the TXT strings, CNAME targets or MX `<preference> <host>` at each record's name) with what must be there. */
export function checkRecords(records: DnsRecord[], spfInclude: string, answers: Map<string, string[]>): RecordCheck[] {
  return records.map((record) => {
    const all = answers.get(answerKey(record)) ?? [];
    const base = { purpose: record.purpose, type: record.type, name: record.name, expected: record.value, required: record.required };
    switch (record.purpose) {
      case 'spf':
        return checkSpf(base, all, spfInclude, false);
      case 'return_path_spf':
        return checkSpf(base, all, spfInclude, true);
      case 'return_path_mx': {
        const host = hostname(record.value.split(/\s+/).pop() ?? '');
        const ok = all.some((v) => hostname(v.split(/\s+/).pop() ?? '') === host);
        if (all.length === 0) return { ...base, found: all, ok, detail: `No MX record for the return-path domain: ${UNREAD}` };
        return {
          ...base,
          found: all,
          ok,
          detail: ok ? 'Bounces and complaints reach the inbound MX.' : `The MX points elsewhere, not to ${host}: ${UNREAD}`,
        };
      }
      case 'dkim': {
        const found = all.filter((v) => /v=DKIM1|p=/i.test(v));
        if (found.length === 0) return { ...base, found, ok: false, detail: 'No DKIM record was found at this name.' };
        const expectedKey = dkimKeyOf(record.value);
        const ok = found.some((v) => dkimKeyOf(v) === expectedKey || compact(v) === compact(record.value));
        return {
          ...base,
          found,
          ok,
          detail: ok ? 'The DKIM key matches.' : 'A DKIM record is published, but its key (p=) is not the one Postbus signs with.',
        };
      }
      case 'tracking': {
        const ok = all.some((v) => hostname(v) === hostname(record.value));
        if (all.length === 0) return { ...base, found: all, ok, detail: 'No CNAME record was found at this name.' };
        return {
          ...base,
          found: all,
          ok,
          detail: ok ? 'The CNAME points to the tracking host.' : `The CNAME points elsewhere, not to ${record.value}.`,
        };
      }
      case 'ownership': {
        const found = all.filter((v) => v.trim().startsWith('postbus-verification='));
        const ok = found.some((v) => v.trim() === record.value);
        // A tracking domain's list holds its CNAME: its token is asked for whoever else has the name.
        const tracking = records.some((r) => r.purpose === 'tracking');
        const detail = ok
          ? 'The verification token proves this client controls the domain.'
          : !record.required
            ? 'Not needed while no other client has this domain.'
            : tracking
              ? 'Publish this TXT record with your token: the CNAME alone does not show that the domain is yours.'
              : 'Another client added this domain first: publish this TXT record with your token to prove you control it.';
        return { ...base, found, ok, detail };
      }
      case 'dmarc': {
        const found = all.filter((v) => /^v=DMARC1/i.test(v.trim()));
        return found.length
          ? { ...base, found, ok: true, detail: 'A DMARC policy is published.' }
          : { ...base, found, ok: false, detail: 'No DMARC record; recommended, not required.' };
      }
    }
  });
}
