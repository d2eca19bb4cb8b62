import { randomBytes } from 'node:crypto';
import { checkRecords, ownershipRecord, ownershipRequired, returnPathRecords, type DnsRecord } from './dns-records';
import type { DnsResolver, DomainDoc, DomainKind, DomainStore } from './ports/domains';

export interface DomainVerificationDeps {
  domains: Pick<DomainStore, 'claimedEarlierByAnother' | 'create' | 'recordCheck' | 'withdrawUnproven'>;
  dns: DnsResolver;
  /** What a sender domain's SPF record must include: the sending service's own SPF. */
  spfInclude: string;
  /** Where a sender domain's return-path domain's MX must point: the inbound service. */
  inboundMxHost: string;
  newToken?: () => string;
  now?: () => Date;
}

/** A domain as the API takes it: lower case, without a trailing dot. */
export const normaliseDomain = (domain: string): string => domain.toLowerCase().replace(/\.$/, '');

/** The ownership record marked as the rule says now, whatever it said when the domain was stored. */
export const ownershipAsRequired = (records: DnsRecord[], required: boolean): DnsRecord[] =>
  records.map((r) => (r.purpose === 'ownership' ? { ...r, required } : r));

/**
 * Adding and verifying a client's sender or tracking domains. Every domain gets its client's
 * ownership token; whether it must verify is asked at creation and at every check (see
 * ownershipRequired): of two clients adding a domain at once, the later must prove it.
 */
export class DomainVerification {
  private readonly newToken: () => string;
  private readonly now: () => Date;

  constructor(private readonly deps: DomainVerificationDeps) {
    this.newToken = deps.newToken ?? (() => randomBytes(16).toString('hex'));
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Stores a new domain of the client (`domain` normalised) with its records: the kind's own
   * (`prepared`, and a sender domain's DKIM key) and the ownership record. 'exists' when the client has it already.
   */
  async add(
    clientId: string,
    kind: DomainKind,
    domain: string,
    prepare: (domain: string) => Promise<Pick<DomainDoc, 'records' | 'dkim'>>,
  ): Promise<DomainDoc | 'exists'> {
    const createdAt = this.now();
    const contested = await this.deps.domains.claimedEarlierByAnother({ clientId, kind, domain, createdAt });
    const prepared = await prepare(domain);
    return this.deps.domains.create({
      clientId,
      kind,
      domain,
      ...prepared,
      records: [...prepared.records, ownershipRecord(domain, this.newToken(), ownershipRequired(kind, contested))],
      status: 'pending',
      checks: null,
      checkedAt: null,
      verifiedAt: null,
      createdAt,
    });
  }

  /** Checks the domain's records in DNS and stores the outcome; null when the domain is gone meanwhile. */
  async verify(found: DomainDoc): Promise<DomainDoc | null> {
    const { domains, dns, spfInclude, inboundMxHost } = this.deps;
    const required = ownershipRequired(found.kind, await domains.claimedEarlierByAnother(found));
    const records = ownershipAsRequired(found.records, required);
    // A domain added before tokens existed gets one now, when it needs it.
    if (required && !records.some((r) => r.purpose === 'ownership')) records.push(ownershipRecord(found.domain, this.newToken(), true));
    // So does a sender domain added before bounces were read, its return-path records.
    if (found.kind === 'sender' && !records.some((r) => r.purpose === 'return_path_mx'))
      records.push(...returnPathRecords(found.domain, inboundMxHost, spfInclude));
    const checks = checkRecords(records, spfInclude, await dns.answersFor(records));
    const at = this.now();
    const checked = await domains.recordCheck(found.clientId, found.kind, String(found._id), records, checks, at);
    if (!checked) return null;
    const proven = checked.status === 'verified' && checks.some((c) => c.purpose === 'ownership' && c.ok);
    // Tracking domains verified on their CNAME alone, before the token was asked for, stay so
    // until their next verify; or until a client proves the name is theirs, as here.
    if (found.kind === 'tracking' && proven)
      await domains.withdrawUnproven(found.kind, checked.domain, found.clientId, at, () =>
        ownershipRecord(checked.domain, this.newToken(), true),
      );
    return checked;
  }
}
