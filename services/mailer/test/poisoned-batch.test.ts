import type { EmailTriggerCommand } from '@postbus/contracts';
import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import type { Deliverer, Outcome } from '../src/domain/delivery/deliverer';
import { TriggerDelivery } from '../src/domain/trigger-delivery';
import { noScheduledSends } from './no-scheduled-sends';
import { SendPathPriority } from '@postbus/bus';
import { emailTriggerHandler } from '../src/handlers/email-trigger.handler';
import { MessageLists } from '../src/model/message-list.repository';
import { MessageStore } from '../src/model/message.repository';
import type { MessageDoc } from '../src/domain/message-records';
import { RetryQueue } from '../src/model/retry.repository';
import { StatusRollups } from '../src/model/rollup.repository';
import { Suppressions } from '../src/model/suppression.repository';
import type { Timeline } from '../src/domain/timeline';

/**
 * Issue 13.5: triggers of many tenants share one grouped insertMany on the real MongoDB-wire
 * server; a document the server (or the driver) refuses must fail its own trigger only.
 */
describe('a poisoned trigger among others', () => {
  let db: Connection;
  let store: MessageStore;
  const delivered: string[] = [];
  let handler: ReturnType<typeof emailTriggerHandler>;

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    store = new MessageStore(db);
    const suppressions = new Suppressions(db, (email) => `hash of ${email}`);
    const retries = new RetryQueue(db);
    const lists = new MessageLists(db);
    const rollups = new StatusRollups(db);
    await Promise.all([store.init(), suppressions.init(), retries.init(), lists.init(), rollups.init()]);
    // The relay and the bus are not what this is about: a deliverer that records, a timeline that accepts.
    const deliverer = {
      deliver: (message: MessageDoc): Promise<Outcome> => {
        delivered.push(message._id);
        return Promise.resolve({ event: 'sent' });
      },
    } as unknown as Deliverer;
    const timeline = { recordAttempt: () => Promise.resolve(), republish: () => Promise.resolve() } as unknown as Timeline;
    handler = emailTriggerHandler(
      new TriggerDelivery({ store, suppressions, retries, deliverer, timeline, lists, rollups, scheduled: noScheduledSends }),
      new SendPathPriority({ whileSendingPerSecond: 50 }),
      new SendPathPriority({ whileSendingPerSecond: 50 }),
    );
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  let n = 0;
  const trigger = (projectId: string, data: Record<string, unknown> = {}): EmailTriggerCommand => ({
    messageId: `msg_${projectId}_${++n}`,
    projectId,
    emailId: 'e1',
    emailKey: 'welcome',
    templateId: 't1',
    templateVersion: 1,
    user: { email: `someone${n}@example.org` },
    data,
    acceptedAt: new Date().toISOString(),
  });
  const ctx = {} as never;

  it.each([
    ['a NUL byte in a key (the driver refuses the whole insertMany)', { 'a\u0000b': 1 }],
    ['a key starting with $ (the server refuses the document)', { nested: { $x: 1 } }],
    ['a dotted key', { 'a.b': 1 }],
  ])("13.5 a poisoned document in a group commit fails alone; the other tenants' triggers are sent: %s", async (_, poison) => {
    delivered.length = 0;
    const batch = [trigger('tenant-a'), trigger('tenant-bad', poison), trigger('tenant-b')];
    // Another partition's triggers join the same group commit while the batch is in it.
    const otherPartition = [trigger('tenant-c'), trigger('tenant-d')];
    const [leftover, ...others] = await Promise.allSettled([
      handler.handleBatch!(batch.map((data) => ({ data, ctx }))),
      ...otherPartition.map((t) => handler.handle(t, ctx)),
    ]);

    expect(leftover).toEqual({ status: 'fulfilled', value: [1] }); // only the poisoned one is retried alone (then dead-lettered)
    expect(others.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(delivered.sort()).toEqual([batch[0]!, batch[2]!, ...otherPartition].map((t) => t.messageId).sort());
    expect((await store.messagesById([...batch, ...otherPartition].map((t) => t.messageId))).size).toBe(4);
    await expect(handler.handle(batch[1]!, ctx)).rejects.toThrow(); // on its own it still fails: the DLQ gets it
  });
});
