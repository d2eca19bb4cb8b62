/**
 * Collects items written from many concurrent callers into one write at a time: while a write is
 * in flight the next group gathers, so each caller waits for at most one write plus its own, and
 * under load one insertMany carries hundreds of items (FerretDB: ≈ 0.03 ms a document in a batch
 * against ≈ 0.5 ms for a lone insert).
 */
export class GroupCommit<T> {
  private pending: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxGroup = 1_000,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.maxGroup);
      try {
        await this.write(group.map((g) => g.item));
        for (const g of group) g.resolve();
      } catch (error) {
        for (const g of group) g.reject(error);
      }
    }
    this.writing = false;
  }
}
