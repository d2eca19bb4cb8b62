import type { Connection } from 'mongoose';
import { SecretBox } from '@postbus/crypto';
import { DeferredSubscriberStore } from './deferred-subscriber.repository';

describe('subscribers while the status database is unreachable', () => {
  it('a subscription is refused with 503, and notifications find the subscribers last read (none yet)', async () => {
    const store = new DeferredSubscriberStore(() => undefined as Connection | undefined, new SecretBox(undefined));
    await expect(
      store.add({ kind: 'webhook', address: 'https://hooks.example.com/x', secret: 'whsec_x', confirmedAt: new Date() }, new Date()),
    ).rejects.toMatchObject({
      status: 503,
    });
    await expect(store.findById('x')).rejects.toMatchObject({ status: 503 });
    await expect(store.listConfirmed()).resolves.toEqual([]);
  });
});
