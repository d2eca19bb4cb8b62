import { Schema, type Connection } from 'mongoose';
import { returnPathDomainOf, type CatalogDomain } from '@postbus/contracts';
import { isDuplicateKeyError } from '@postbus/db';

/**
 * Two documents per sender domain, each read by _id: `rp:<return-path domain>` answers the MX's
 * question (is this one of ours?), `id:<domain id>` finds it again when the catalog deletes the
 * domain by id. Both keep the catalog revision, so an older copy never undoes a newer one.
 */
interface ReturnPathDoc {
  _id: string;
  domainId: string;
  returnPathDomain: string;
  revision: number;
  deleted: boolean;
}

const returnPathSchema = new Schema<ReturnPathDoc>(
  { _id: String, domainId: String, returnPathDomain: String, revision: Number, deleted: Boolean },
  { collection: 'return_path_domains', versionKey: false },
);

/** The return-path domains the MX takes mail for: those of the catalog's sender domains. */
export class ReturnPathDomains {
  private readonly Doc;
  /** Answers are kept a few seconds: a burst of reports asks about the same domain again and again. */
  private readonly cache = new Map<string, { known: Promise<boolean>; expires: number }>();

  constructor(
    connection: Connection,
    private readonly cacheTtlMs = 5_000,
    private readonly cacheMax = 10_000,
  ) {
    this.Doc = connection.model<ReturnPathDoc>('ReturnPathDomain', returnPathSchema);
  }

  async init(): Promise<void> {
    await this.Doc.init();
  }

  private async put(doc: ReturnPathDoc): Promise<void> {
    try {
      await this.Doc.replaceOne({ _id: doc._id, revision: { $lt: doc.revision } }, doc, { upsert: true }).exec();
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // a copy as new or newer is stored already
    }
  }

  /** A sender domain as the catalog publishes it; tracking domains have no return path. */
  async apply(domain: CatalogDomain): Promise<void> {
    if (domain.kind !== 'sender') return;
    const returnPathDomain = returnPathDomainOf(domain.domain);
    const fields = { domainId: domain.id, returnPathDomain, revision: domain.revision, deleted: false };
    await this.put({ _id: `id:${domain.id}`, ...fields });
    await this.put({ _id: `rp:${returnPathDomain}`, ...fields });
    this.cache.delete(returnPathDomain);
  }

  async remove(domainId: string, revision: number): Promise<void> {
    const byId = await this.Doc.findById(`id:${domainId}`).lean<ReturnPathDoc>().exec();
    if (!byId) return; // a tracking domain, or one this service never saw
    const fields = { domainId, returnPathDomain: byId.returnPathDomain, revision, deleted: true };
    await this.put({ _id: `rp:${byId.returnPathDomain}`, ...fields });
    await this.put({ _id: `id:${domainId}`, ...fields });
    this.cache.delete(byId.returnPathDomain);
  }

  async knows(returnPathDomain: string): Promise<boolean> {
    const now = Date.now();
    const cached = this.cache.get(returnPathDomain);
    if (cached && cached.expires > now) return cached.known;
    const known = this.Doc.findById(`rp:${returnPathDomain}`)
      .lean<ReturnPathDoc>()
      .exec()
      .then((doc) => doc !== null && !doc.deleted);
    if (this.cache.size >= this.cacheMax) this.cache.clear(); // probes of random domains must not grow it without end
    this.cache.set(returnPathDomain, { known, expires: now + this.cacheTtlMs });
    known.catch(() => this.cache.delete(returnPathDomain));
    return known;
  }
}
