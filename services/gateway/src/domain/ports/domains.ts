import type { Sealed } from '@postbus/crypto';
import type { DnsRecord, RecordCheck, RecordType } from '../dns-records';

export type DomainKind = 'sender' | 'tracking';
export type DomainStatus = 'pending' | 'verified' | 'failed';

/** The DKIM key of a sender domain. */
export interface DkimDoc {
  selector: string;
  publicKey: string;
  /** AES-256-GCM sealed; never returned by the API. */
  privateKey: Sealed;
}

export interface DomainDoc {
  /** The id the store gave the domain: the rules only ever name it as text (String(_id)). */
  _id: { toString(): string };
  clientId: string;
  kind: DomainKind;
  domain: string;
  /** Sender domains only. */
  dkim: DkimDoc | null;
  records: DnsRecord[];
  status: DomainStatus;
  checks: RecordCheck[] | null;
  checkedAt: Date | null;
  verifiedAt: Date | null;
  createdAt: Date;
}

/** The clients' sender and tracking domains: what adding, verifying and triggering need of them. */
export interface DomainStore {
  /** The client's domain of this kind; null when the client has none by that id. */
  get(clientId: string, kind: DomainKind, id: string): Promise<DomainDoc | null>;
  /** 'exists' when the client has this domain (of this kind) already. */
  create(doc: Omit<DomainDoc, '_id'>): Promise<DomainDoc | 'exists'>;
  /** Whether another client added this domain (of this kind) before this one. */
  claimedEarlierByAnother(
    doc: Pick<DomainDoc, 'clientId' | 'kind' | 'domain' | 'createdAt'> & { _id?: DomainDoc['_id'] },
  ): Promise<boolean>;
  /** Stores a check of the domain's records; null when the domain is gone. */
  recordCheck(
    clientId: string,
    kind: DomainKind,
    id: string,
    records: DnsRecord[],
    checks: RecordCheck[],
    at: Date,
  ): Promise<DomainDoc | null>;
  /** Withdraws other clients' verifications of the domain that no token of theirs backs; how many it withdrew. */
  withdrawUnproven(kind: DomainKind, domain: string, provenBy: string, at: Date, ownership: () => DnsRecord): Promise<number>;
}

/** DNS, as a domain's verification asks it. */
export interface DnsResolver {
  /** What DNS holds for each record's name and type, keyed by answerKey. */
  answersFor(records: { name: string; type: RecordType }[]): Promise<Map<string, string[]>>;
}
