import type { Connection } from 'mongoose';
import { ServiceUnavailableError } from '@postbus/errors';
import { MongoSubscriberStore, type NewSubscriber, type Subscriber, type SubscriberStore } from '../subscriptions/store';

/**
 * The subscribers in the status service's database, on whatever connection the persistence has
 * now: the service starts (and serves its page) before MongoDB answers, and keeps serving when it
 * goes away. Without a connection a subscription is refused with 503 (try again later) and a
 * notification finds nobody to tell, rather than either waiting on a database that is down.
 */
export class DeferredSubscriberStore implements SubscriberStore {
  private store: { connection: Connection; store: MongoSubscriberStore } | undefined;

  constructor(private readonly connection: () => Connection | undefined) {}

  private current(): MongoSubscriberStore {
    const connection = this.connection();
    if (!connection)
      throw new ServiceUnavailableError('Subscriptions need the status database, which is not reachable now; try again later.', 30);
    if (this.store?.connection !== connection) this.store = { connection, store: new MongoSubscriberStore(connection) };
    return this.store.store;
  }

  add(subscriber: NewSubscriber, at: Date): Promise<Subscriber> {
    return this.current().add(subscriber, at);
  }

  findById(id: string): Promise<Subscriber | null> {
    return this.current().findById(id);
  }

  confirm(id: string, at: Date): Promise<void> {
    return this.current().confirm(id, at);
  }

  remove(id: string): Promise<boolean> {
    return this.current().remove(id);
  }

  listConfirmed(): Promise<Subscriber[]> {
    return this.current().listConfirmed();
  }
}
