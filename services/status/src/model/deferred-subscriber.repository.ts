import type { Connection } from 'mongoose';
import type { SecretBox } from '@postbus/crypto';
import { ServiceUnavailableError } from '@postbus/errors';
import type { ListedSubscriber, NewSubscriber, Subscriber, SubscriberStore } from '../domain/ports';
import { MongoSubscriberStore } from './subscriber.repository';

/**
 * The subscribers in the status service's database, on whatever connection the persistence has
 * now: the service starts (and serves its page) before MongoDB answers, and keeps serving when it
 * goes away. Without a connection a subscription is refused with 503 (try again later), and
 * notifications go to the subscribers last read from the database (an outage of the database is
 * when they matter), rather than either waiting on a database that is down.
 */
export class DeferredSubscriberStore implements SubscriberStore {
  private store: { connection: Connection; store: MongoSubscriberStore } | undefined;
  private lastConfirmed: Subscriber[] = [];

  constructor(
    private readonly connection: () => Connection | undefined,
    private readonly secrets: SecretBox,
    private readonly onUnreadableSecret?: (subscriberId: string) => void,
  ) {}

  private current(): MongoSubscriberStore {
    const connection = this.connection();
    if (!connection)
      throw new ServiceUnavailableError('Subscriptions need the status database, which is not reachable now; try again later.', 30);
    if (this.store?.connection !== connection)
      this.store = { connection, store: new MongoSubscriberStore(connection, this.secrets, this.onUnreadableSecret) };
    return this.store.store;
  }

  async add(subscriber: NewSubscriber, at: Date): Promise<Subscriber> {
    return await this.current().add(subscriber, at);
  }

  async findById(id: string): Promise<Subscriber | null> {
    return await this.current().findById(id);
  }

  async confirm(id: string, at: Date): Promise<void> {
    return await this.current().confirm(id, at);
  }

  async remove(id: string): Promise<boolean> {
    return await this.current().remove(id);
  }

  async list(): Promise<ListedSubscriber[]> {
    return await this.current().list();
  }

  async count(): Promise<number> {
    return await this.current().count();
  }

  async removeUnconfirmed(before: Date): Promise<number> {
    return await this.current().removeUnconfirmed(before);
  }

  async claimConfirmation(id: string, at: Date, since: Date): Promise<boolean> {
    return await this.current().claimConfirmation(id, at, since);
  }

  async listConfirmed(): Promise<Subscriber[]> {
    if (!this.connection()) return this.lastConfirmed.map((s) => ({ ...s }));
    this.lastConfirmed = await this.current().listConfirmed();
    return this.lastConfirmed.map((s) => ({ ...s }));
  }
}
