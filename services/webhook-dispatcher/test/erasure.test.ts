import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { DeliveryErasure } from '../src/domain/erasure-participant';
import type { DeliveryDoc } from '../src/domain/records';
import { bodyOf, messageEvent } from '../src/domain/webhook-payloads';
import { DeliveryStore } from '../src/model/delivery.repository';

/** The dispatcher's erasure against the real MongoDB-wire server: a `$regex` scan, confirmed in code. */
describe('erasing a person from the webhook deliveries', () => {
  let db: Connection;
  let deliveries: DeliveryStore;

  const delivery = (id: string, projectId: string, email: string, userId: string | null): DeliveryDoc => ({
    _id: id,
    endpointId: 'ep_1',
    clientId: 'cl_1',
    eventId: `ev_${id}`,
    eventType: 'message.sent',
    payload: bodyOf(
      messageEvent('message.sent', {
        messageId: `msg_${id}`,
        projectId,
        emailKey: 'welcome',
        email,
        userId,
        event: 'sent',
        sequence: 2,
        at: new Date().toISOString(),
      }),
    ),
    createdAt: new Date(),
  });

  beforeAll(async () => {
    db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('t').replace(/-/g, '_') });
    deliveries = new DeliveryStore(db);
    await deliveries.init();
  });

  afterAll(async () => {
    await db?.dropDatabase();
    await db?.close();
  });

  it('deletes the deliveries about the person, with their attempts and due attempts, and nothing else', async () => {
    await deliveries.add([
      delivery('d1', 'p1', 'a.b+c@example.org', null),
      delivery('d2', 'p1', 'other@example.org', 'u(1)'),
      delivery('d3', 'p2', 'a.b+c@example.org', 'u(1)'),
      delivery('d4', 'p1', 'aXb+c@example.org', null),
    ]);
    for (const id of ['d1', 'd2', 'd4']) {
      await deliveries.recordAttempt({
        _id: `${id}:1`,
        deliveryId: id,
        endpointId: 'ep_1',
        attempt: 1,
        at: new Date(),
        statusCode: 500,
        latencyMs: 3,
        response: null,
        error: null,
        outcome: 'retrying',
      });
    }
    await deliveries.due.schedule('d2', new Date(Date.now() + 60_000), { attempt: 2, endpointId: 'ep_1' });

    const erasure = new DeliveryErasure({ deliveries });
    const subject = {
      erasureId: 'era_1',
      projectId: 'p1',
      id: null,
      email: 'a.b+c@example.org',
      userId: 'u(1)',
      before: new Date(Date.now() + 60_000).toISOString(),
    };
    expect(await erasure.erase(subject)).toEqual({ deliveries: 2, attempts: 2 });
    expect([...(await deliveries.deliveriesById(['d1', 'd2', 'd3', 'd4'])).keys()].sort()).toEqual(['d3', 'd4']);
    expect((await deliveries.attempts(['d4'])).get('d4')).toHaveLength(1);
    expect(await deliveries.due.pending('d2')).toBe(false);
    expect(await erasure.erase(subject)).toEqual({ deliveries: 0, attempts: 0 });
  });
});
