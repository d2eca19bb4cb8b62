import { Schema, type Connection } from 'mongoose';
import { returnPathDomainOf, type CatalogDomain } from '@postbus/contracts';
import { isDuplicateKeyError } from '@postbus/db';

/**
 * Two kinds of document, each read by _id:
 * - `id:<domain id>`, one per sender domain: its return-path domain and whether it holds it (it is
 *   verified), at the catalog revision it came from, so an older copy never undoes a newer one. Only
 *   the events of that domain write it, one after another (the catalog is keyed by domain).
 * - `rp:<return-path domain>`, one per return-path domain: the sender domains that hold it. Sender
 *   domains are unique per client, so two clients may add the same name: the MX takes mail for it
 *   while any of them has verified it, and one client's add, verify or delete never changes another's
 *   hold. Each report still reaches only its own message's client, by its signed token.
 */
interface SenderDomainDoc {
  _id: string;
  domainId: string;
  returnPathDomain: string;
  revision: number;
  holds: boolean;
  deleted: boolean;
}

interface Hold {
  domainId: string;
  revision: number;
  holds: boolean;
}

interface ReturnPathDoc {
  _id: string;
  holders?: Hold[];
  /** Before holders: the one sender domain that wrote it last. */
  domainId?: string;
  revision?: number;
  deleted?: boolean;
}

const schema = new Schema<SenderDomainDoc | ReturnPathDoc>(
  {
    _id: String,
    domainId: String,
    returnPathDomain: String,
    revision: Number,
    holds: Boolean,
    deleted: Boolean,
    holders: { type: [{ _id: false, domainId: String, revision: Number, holds: Boolean }], default: undefined },
  },
  { collection: 'return_path_domains', versionKey: false },
);

/** The holds a return-path document records; a document from before holders counts as its one writer's. */
const holdsOf = (doc: ReturnPathDoc | null): Hold[] => {
  if (!doc) return [];
  if (doc.holders) return doc.holders;
  return doc.domainId ? [{ domainId: doc.domainId, revision: doc.revision ?? 0, holds: !doc.deleted }] : [];
};

/** How often a hold is written again when another domain's write of the same document replaced it. */
const HOLD_WRITE_ATTEMPTS = 5;

/** The return-path domains the MX takes mail for: those of the catalog's verified sender domains. */
export class ReturnPathDomains {
  private readonly Doc;
  /** Answers are kept a few seconds: a burst of reports asks about the same domain again and again. */
  private readonly cache = new Map<string, { known: Promise<boolean>; expires: number }>();

  constructor(
    connection: Connection,
    private readonly cacheTtlMs = 5_000,
    private readonly cacheMax = 10_000,
  ) {
    this.Doc = connection.model<SenderDomainDoc | ReturnPathDoc>('ReturnPathDomain', schema);
  }

  async init(): Promise<void> {
    await this.Doc.init();
  }

  /** A sender domain as the catalog publishes it: it holds its return-path domain while verified. Tracking domains have none. */
  async apply(domain: CatalogDomain): Promise<void> {
    if (domain.kind !== 'sender') return;
    await this.record(domain.id, returnPathDomainOf(domain.domain), domain.revision, domain.status === 'verified', false);
  }

  async remove(domainId: string, revision: number): Promise<void> {
    const known = await this.Doc.findById(`id:${domainId}`).lean<SenderDomainDoc>().exec();
    if (!known) return; // a tracking domain, or one this service never saw
    await this.record(domainId, known.returnPathDomain, revision, false, true);
  }

  private async record(domainId: string, returnPathDomain: string, revision: number, holds: boolean, deleted: boolean): Promise<void> {
    const previous = await this.Doc.findById(`id:${domainId}`).lean<SenderDomainDoc>().exec();
    if (previous && previous.revision >= revision) return; // a copy as new or newer is stored already
    // A domain's name never changes, but a copy of the document from before could name another.
    if (previous && previous.returnPathDomain !== returnPathDomain) await this.hold(previous.returnPathDomain, domainId, revision, false);
    await this.hold(returnPathDomain, domainId, revision, holds);
    const doc: SenderDomainDoc = { _id: `id:${domainId}`, domainId, returnPathDomain, revision, holds, deleted };
    try {
      await this.Doc.replaceOne({ _id: doc._id, revision: { $lt: revision } }, doc, { upsert: true }).exec();
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // a copy as new or newer is stored already
    }
  }

  /**
   * Sets one sender domain's hold on a return-path domain, leaving the others' as they are. The
   * database has no atomic update of part of a document, so the write is read back: when another
   * domain's write of the same document replaced it in between, it is made again (and the catalog's
   * periodic republish repairs what even that misses).
   */
  private async hold(returnPathDomain: string, domainId: string, revision: number, holds: boolean): Promise<void> {
    const _id = `rp:${returnPathDomain}`;
    for (let attempt = 0; ; attempt++) {
      const holders = holdsOf(await this.Doc.findById(_id).lean<ReturnPathDoc>().exec());
      const mine = holders.find((h) => h.domainId === domainId);
      if (mine && mine.revision >= revision) break; // stored (by this write or an earlier one), or newer
      if (attempt === HOLD_WRITE_ATTEMPTS) throw new Error(`the hold on ${returnPathDomain} was replaced ${attempt} times in a row`);
      // A domain that holds nothing keeps its entry too: its revision stops an older copy of it.
      const others = holders.filter((h) => h.domainId !== domainId);
      await this.Doc.replaceOne({ _id }, { _id, holders: [...others, { domainId, revision, holds }] }, { upsert: true }).exec();
    }
    this.cache.delete(returnPathDomain);
  }

  async knows(returnPathDomain: string): Promise<boolean> {
    const now = Date.now();
    const cached = this.cache.get(returnPathDomain);
    if (cached && cached.expires > now) return cached.known;
    const known = this.Doc.findById(`rp:${returnPathDomain}`)
      .lean<ReturnPathDoc>()
      .exec()
      .then((doc) => holdsOf(doc).some((h) => h.holds));
    if (this.cache.size >= this.cacheMax) this.cache.clear(); // probes of random domains must not grow it without end
    this.cache.set(returnPathDomain, { known, expires: now + this.cacheTtlMs });
    known.catch(() => this.cache.delete(returnPathDomain));
    return known;
  }
}
