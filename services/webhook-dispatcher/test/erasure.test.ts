import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';
import { DeliveryErasure } from '../src/domain/erasure-participant';
import { personOf } from '../src/domain/delivery-keys';
import type { DeliveryDoc } from '../src/domain/records';
import { bodyIn } from '../src/domain/webhook-formats';
import { bodyOf, messageEvent } from '../src/domain/webhook-payloads';
import { DeliveryStore } from '../src/model/delivery.repository';

/** The dispatcher's erasure against the real MongoDB-wire server: a `$regex` scan, confirmed in code. */
describe('erasing a person from the webhook deliveries', () => {
  let db: Connection;
  let deliveries: DeliveryStore;

  const sent = (id: string, projectId: string, email: string, userId: string | null) =>
    messageEvent('message.sent', {
      messageId: `msg_${id}`,
      projectId,
      emailKey: 'welcome',
      email,
      userId,
      event: 'sent',
      sequence: 2,
      at: new Date().toISOString(),
    });

  const delivery = (id: string, projectId: string, email: string, userId: string | null): DeliveryDoc => ({
    _id: id,
    endpointId: 'ep_1',
    clientId: 'cl_1',
    eventId: `ev_${id}`,
    eventType: 'message.sent',
    payload: bodyOf(sent(id, projectId, email, userId)),
    createdAt: new Date(),
  });

  /** A delivery in Resend's format: its body names neither project nor user id; whom it is about is kept beside it. */
  const inResendFormat = (id: string, projectId: string, email: string, userId: string | null): DeliveryDoc => {
    const event = sent(id, projectId, email, userId);
    return { ...delivery(id, projectId, email, userId), payload: bodyIn('resend', event)!, format: 'resend', person: personOf(event)! };
  };

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
      inResendFormat('d5', 'p1', 'a.b+c@example.org', null),
      inResendFormat('d6', 'p1', 'other@example.org', 'u(1)'),
      inResendFormat('d7', 'p2', 'a.b+c@example.org', 'u(1)'),
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
    expect(await erasure.erase(subject)).toEqual({ deliveries: 4, attempts: 2 });
    const ids = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7'];
    expect([...(await deliveries.deliveriesById(ids)).keys()].sort()).toEqual(['d3', 'd4', 'd7']);
    // Stored with it: a later erasure confirms a delivery it reads by whom it is about.
    expect(await deliveries.delivery('d7')).toMatchObject({ format: 'resend', person: { projectId: 'p2', email: 'a.b+c@example.org' } });
    expect((await deliveries.attempts(['d4'])).get('d4')).toHaveLength(1);
    expect(await deliveries.due.pending('d2')).toBe(false);
    expect(await erasure.erase(subject)).toEqual({ deliveries: 0, attempts: 0 });
  });
});
