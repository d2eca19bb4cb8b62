/**
 * Collects items from many concurrent callers into one operation at a time: while one is in
 * flight the next group gathers, so each caller waits for at most one operation plus its own, and
 * under load one insertMany carries hundreds of items (FerretDB: ≈ 0.03 ms a
 * document in a batch against ≈ 0.5 ms for a lone insert). Callers from different Kafka
 * partitions share a group, which per-partition batches cannot do.
 *
 * `run` gets the group's items and returns one result per item, in order (or nothing, for void).
 */
interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<T, R = void> {
  private pending: Array<Pending<T, R>> = [];
  private running = false;

  /**
   * `lingerMs`: how long a first item waits for others before its group is committed (0: at
   * once). Callers whose items come a few milliseconds apart (each mail's outcome, as its relay
   * answers) then share one operation instead of one each, for that much latency.
   */
  constructor(
    private readonly run: (items: T[]) => Promise<R[] | void>,
    private readonly maxGroup = 1_000,
    private readonly lingerMs = 0,
  ) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.running) return;
      this.running = true;
      if (this.lingerMs > 0) setTimeout(() => void this.flush(), this.lingerMs);
      else void this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) await this.commit(this.pending.splice(0, this.maxGroup));
    this.running = false;
  }

  /**
   * One document the store refuses (a key it cannot hold, a value too large) must not fail the
   * other callers' items, which may belong to other tenants: a failed group is split in halves
   * and each retried, so that only the items that fail on their own are rejected (about
   * 2·log₂(n) extra operations for one bad item). Unordered inserts that stored the good half
   * already find it as existing on the retry, which callers treat as a redelivery.
   */
  private async commit(group: Array<Pending<T, R>>): Promise<void> {
    try {
      const results = await this.run(group.map((g) => g.item));
      group.forEach((g, i) => g.resolve((results ? results[i] : undefined) as R));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      const half = Math.ceil(group.length / 2);
      await this.commit(group.slice(0, half));
      await this.commit(group.slice(half));
    }
  }
}
