import { Schema, Types, type Connection } from 'mongoose';
import { isDuplicateKeyError, KeyedSerializer } from '@postbus/db';
import type { DnsRecord, RecordCheck } from '../domain/dns-records';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource } from '../domain/ports/catalog';
import type { DomainDoc, DomainKind, DomainStore } from '../domain/ports/domains';

/** A domain as stored: its id is the database's. */
interface StoredDomain extends DomainDoc {
  _id: Types.ObjectId;
}

const domainSchema = new Schema<StoredDomain>(
  {
    clientId: { type: String, required: true },
    kind: { type: String, required: true },
    domain: { type: String, required: true },
    dkim: { type: Schema.Types.Mixed, default: null },
    records: { type: Schema.Types.Mixed, required: true },
    status: { type: String, required: true, default: 'pending' },
    checks: { type: Schema.Types.Mixed, default: null },
    checkedAt: { type: Date, default: null },
    verifiedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'domains', versionKey: false, minimize: false },
);
domainSchema.index({ clientId: 1, kind: 1, domain: 1 }, { unique: true });

const toCatalog = (d: StoredDomain): CatalogChange => ({
  type: 'catalog.domain',
  kind: 'domain',
  data: {
    id: String(d._id),
    clientId: d.clientId,
    revision: Math.max(d.createdAt.getTime(), d.checkedAt?.getTime() ?? 0),
    kind: d.kind,
    domain: d.domain,
    status: d.status,
    dkim: d.dkim ? { selector: d.dkim.selector, privateKey: d.dkim.privateKey } : null,
  },
});

/** Sender and tracking domains, each owned by one client; another client's domain reads as missing. */
export class DomainRepository implements CatalogSource, DomainStore {
  private readonly Domain;
  /** Changes of one domain one at a time (see KeyedSerializer). */
  private readonly perDomain = new KeyedSerializer();

  constructor(
    connection: Connection,
    private readonly catalog: CatalogListener,
  ) {
    this.Domain = connection.model<StoredDomain>('Domain', domainSchema);
  }

  async catalogSnapshot(): Promise<CatalogChange[]> {
    return (await this.Domain.find().lean<StoredDomain[]>().exec()).map(toCatalog);
  }

  async init(): Promise<void> {
    await this.Domain.init();
  }

  /** 'exists' when the client has this domain (of this kind) already. */
  async create(doc: Omit<DomainDoc, '_id'>): Promise<StoredDomain | 'exists'> {
    try {
      const created = (await this.Domain.create(doc)).toObject();
      await this.catalog.changed(toCatalog(created));
      return created;
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'exists';
      throw error;
    }
  }

  /**
   * Whether another client added this domain (of this kind) before this one: then this client must
   * prove with its ownership token that it controls the domain. The earlier one keeps its domain.
   */
  async claimedEarlierByAnother(
    doc: Pick<DomainDoc, 'clientId' | 'kind' | 'domain' | 'createdAt'> & { _id?: DomainDoc['_id'] },
  ): Promise<boolean> {
    const others = await this.Domain.find({ kind: doc.kind, domain: doc.domain, clientId: { $ne: doc.clientId } }, { createdAt: 1 })
      .lean<Array<Pick<StoredDomain, '_id' | 'createdAt'>>>()
      .exec();
    const mine = doc._id ? String(doc._id) : undefined;
    return others.some(
      (o) =>
        o.createdAt < doc.createdAt || (o.createdAt.getTime() === doc.createdAt.getTime() && mine !== undefined && String(o._id) < mine),
    );
  }

  list(clientId: string, kind: DomainKind): Promise<StoredDomain[]> {
    return this.Domain.find({ clientId, kind }).sort({ createdAt: 1 }).lean<StoredDomain[]>().exec();
  }

  async get(clientId: string, kind: DomainKind, id: string): Promise<StoredDomain | null> {
    if (!Types.ObjectId.isValid(id)) return null;
    return this.Domain.findOne({ _id: id, clientId, kind }).lean<StoredDomain>().exec();
  }

  /** `records`: the domain's records as they were checked (whether ownership is required may have changed). */
  async recordCheck(
    clientId: string,
    kind: DomainKind,
    id: string,
    records: DnsRecord[],
    checks: RecordCheck[],
    at: Date,
  ): Promise<StoredDomain | null> {
    const verified = checks.every((c) => c.ok || !c.required);
    const set = { records, checks, checkedAt: at, status: verified ? 'verified' : 'failed', ...(verified ? { verifiedAt: at } : {}) };
    const updated = await this.perDomain.run(id, () =>
      this.Domain.findOneAndUpdate({ _id: id, clientId, kind }, { $set: set }, { returnDocument: 'after' }).lean<StoredDomain>().exec(),
    );
    if (updated) await this.catalog.changed(toCatalog(updated));
    return updated;
  }

  /**
   * Once a client proved with its token that it controls a domain, other clients' verifications of
   * the same domain that no token of theirs backs are withdrawn (status failed, a check saying why):
   * a tracking domain verified on its CNAME alone, before tokens were asked for, may be a name its
   * owner never gave them. A verification their own token backs stands. `ownership` makes the
   * ownership record of a domain stored without one. Returns how many were withdrawn.
   */
  async withdrawUnproven(kind: DomainKind, domain: string, provenBy: string, at: Date, ownership: () => DnsRecord): Promise<number> {
    const verified = await this.Domain.find({ kind, domain, status: 'verified', clientId: { $ne: provenBy } })
      .lean<StoredDomain[]>()
      .exec();
    const unproven = verified.filter((d) => !d.checks?.some((c) => c.purpose === 'ownership' && c.ok));
    let withdrawn = 0;
    for (const d of unproven) {
      const owned = { ...(d.records.find((r) => r.purpose === 'ownership') ?? ownership()), required: true };
      const records = [...d.records.filter((r) => r.purpose !== 'ownership'), owned];
      const checks: RecordCheck[] = [
        ...(d.checks ?? []).filter((c) => c.purpose !== 'ownership'),
        {
          purpose: 'ownership',
          type: 'TXT',
          name: owned.name,
          expected: owned.value,
          found: [],
          ok: false,
          required: true,
          detail: 'Another client proved with its token that it controls this domain: publish yours and verify again.',
        },
      ];
      // Only the verification read above: one made since (with a token, necessarily) stands.
      const updated = await this.perDomain.run(String(d._id), () =>
        this.Domain.findOneAndUpdate(
          { _id: d._id, status: 'verified', checkedAt: d.checkedAt },
          { $set: { records, checks, checkedAt: at, status: 'failed' } },
          { returnDocument: 'after' },
        )
          .lean<StoredDomain>()
          .exec(),
      );
      if (!updated) continue;
      withdrawn++;
      await this.catalog.changed(toCatalog(updated));
    }
    return withdrawn;
  }

  async delete(clientId: string, kind: DomainKind, id: string): Promise<boolean> {
    if (!Types.ObjectId.isValid(id)) return false;
    if ((await this.Domain.deleteOne({ _id: id, clientId, kind }).exec()).deletedCount !== 1) return false;
    await this.catalog.changed(deletion('domain', id, clientId));
    return true;
  }
}
