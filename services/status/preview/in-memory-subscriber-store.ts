import { randomUUID } from 'node:crypto';
import type { ListedSubscriber, NewSubscriber, Subscriber, SubscriberStore } from '#status/domain/ports';

/**
 * The subscribers in memory, for the preview server and the tests (test/subscriber-store.test.ts
 * holds it to the same behaviour as the database's `MongoSubscriberStore`).
 */
export class InMemorySubscriberStore implements SubscriberStore {
  private readonly byId = new Map<string, Subscriber>();
  private readonly confirmationsSent = new Map<string, Date>();

  add(subscriber: NewSubscriber, at: Date): Promise<Subscriber> {
    const existing = [...this.byId.values()].find((s) => s.kind === subscriber.kind && s.address === subscriber.address);
    if (existing) return Promise.resolve({ ...existing });
    const created: Subscriber = { ...subscriber, id: randomUUID(), createdAt: at };
    this.byId.set(created.id, created);
    return Promise.resolve({ ...created });
  }

  findById(id: string): Promise<Subscriber | null> {
    const found = this.byId.get(id);
    return Promise.resolve(found ? { ...found } : null);
  }

  confirm(id: string, at: Date): Promise<void> {
    const found = this.byId.get(id);
    if (found && !found.confirmedAt) found.confirmedAt = at;
    return Promise.resolve();
  }

  remove(id: string): Promise<boolean> {
    this.confirmationsSent.delete(id);
    return Promise.resolve(this.byId.delete(id));
  }

  listConfirmed(): Promise<Subscriber[]> {
    return Promise.resolve([...this.byId.values()].filter((s) => s.confirmedAt !== null).map((s) => ({ ...s })));
  }

  list(): Promise<ListedSubscriber[]> {
    const all = [...this.byId.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    return Promise.resolve(all.map(({ secret: _secret, ...listed }) => listed));
  }

  count(): Promise<number> {
    return Promise.resolve(this.byId.size);
  }

  async removeUnconfirmed(before: Date): Promise<number> {
    const expired = [...this.byId.values()].filter((s) => s.confirmedAt === null && s.createdAt < before);
    for (const subscriber of expired) await this.remove(subscriber.id);
    return expired.length;
  }

  claimConfirmation(id: string, at: Date, since: Date): Promise<boolean> {
    const subscriber = this.byId.get(id);
    const last = this.confirmationsSent.get(id);
    if (!subscriber || subscriber.confirmedAt || (last && last > since)) return Promise.resolve(false);
    this.confirmationsSent.set(id, at);
    return Promise.resolve(true);
  }
}
