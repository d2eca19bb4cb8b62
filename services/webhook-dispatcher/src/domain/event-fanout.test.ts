import { createLogger } from '@postbus/logger';
import { messageContext } from '@postbus/testing/fakes';
import { deliveryIdOf } from './delivery-keys';
import { EventFanout } from './event-fanout';
import type { ProjectOwner } from './ports';
import type { DeliveryDoc, EndpointDoc } from './records';
import { bodyOf, messageEvent, userUnsubscribed, type WebhookEvent } from './webhook-payloads';

const logger = createLogger({ service: 'fanout-test', level: 'error' });
/** A message sent just now: the wait for an unknown project runs from its event's time. */
const ctx = (id: string) => messageContext(id, { time: new Date().toISOString() });

const event = (projectId: string): WebhookEvent =>
  userUnsubscribed({
    projectId,
    id: 'u',
    userId: null,
    email: 'ann@example.com',
    reason: null,
    unsubscribedAt: '2026-01-01T00:00:00.000Z',
  });

const endpoint = (id: string, clientId: string, events: string[], format?: EndpointDoc['format']): EndpointDoc =>
  ({
    _id: id,
    clientId,
    projectId: null,
    url: 'https://example.com/hook',
    events,
    enabled: true,
    ...(format ? { format } : {}),
  }) as EndpointDoc;

function setup(owners: Record<string, ProjectOwner>, endpoints: EndpointDoc[]) {
  const stored: DeliveryDoc[] = [];
  const attempted: DeliveryDoc[][] = [];
  const lookups: string[] = [];
  const fanout = new EventFanout({
    logger,
    projectWaitMs: 300,
    projects: {
      ownerOf: (projectId) => {
        lookups.push(projectId);
        return Promise.resolve(owners[projectId]);
      },
    },
    endpoints: {
      matching: (clientId, _projectId, type) =>
        Promise.resolve(endpoints.filter((e) => e.clientId === clientId && (e.events.includes('*') || e.events.includes(type)))),
    },
    deliveries: {
      add: (docs) => {
        const fresh = docs.filter((d) => !stored.some((s) => s._id === d._id));
        stored.push(...fresh);
        return Promise.resolve(fresh);
      },
    },
    attemptFirst: (docs) => {
      attempted.push(docs);
      return Promise.resolve();
    },
  });
  return { fanout, stored, attempted, lookups };
}

describe('EventFanout', () => {
  it("makes one delivery per matching endpoint of the project's client, with the body subscribers get", async () => {
    const { fanout, stored, attempted } = setup({ p1: { clientId: 'cl_1' } }, [
      endpoint('we_all', 'cl_1', ['*']),
      endpoint('we_unsub', 'cl_1', ['user.unsubscribed']),
      endpoint('we_other_type', 'cl_1', ['message.sent']),
      endpoint('we_other_client', 'cl_2', ['*']),
    ]);
    await fanout.deliver([{ event: event('p1'), ctx: ctx('evt_1') }]);
    expect(stored.map((d) => d.endpointId).sort()).toEqual(['we_all', 'we_unsub']);
    expect(stored[0]).toMatchObject({
      _id: deliveryIdOf('evt_1', stored[0]!.endpointId),
      clientId: 'cl_1',
      eventId: 'evt_1',
      eventType: 'user.unsubscribed',
      payload: bodyOf(event('p1')),
    });
    expect(attempted).toEqual([stored]);
  });

  it("writes each endpoint's body in its format, keeps whom it is about beside a formatted one, and skips a format with no counterpart", async () => {
    const { fanout, stored } = setup({ p1: { clientId: 'cl_1' } }, [
      endpoint('we_standard', 'cl_1', ['*']),
      endpoint('we_resend', 'cl_1', ['*'], 'resend'),
      endpoint('we_postmark', 'cl_1', ['*'], 'postmark'),
    ]);
    const sent = messageEvent('message.sent', {
      messageId: 'msg_1',
      projectId: 'p1',
      emailKey: null,
      email: 'ann@example.com',
      userId: 'u1',
      event: 'sent',
      sequence: 2,
      at: '2026-01-01T00:00:00.000Z',
    });
    await fanout.deliver([
      { event: sent, ctx: ctx('evt_sent') },
      { event: event('p1'), ctx: ctx('evt_unsubscribed') },
    ]);
    const byEndpoint = (eventId: string) => Object.fromEntries(stored.filter((d) => d.eventId === eventId).map((d) => [d.endpointId, d]));
    const deliveries = byEndpoint('evt_sent');
    expect(deliveries['we_standard']).toMatchObject({ payload: bodyOf(sent) });
    expect(deliveries['we_standard']).not.toHaveProperty('format');
    expect(deliveries['we_standard']).not.toHaveProperty('person');
    const person = { projectId: 'p1', email: 'ann@example.com', userId: 'u1', at: '2026-01-01T00:00:00.000Z' };
    expect(deliveries['we_resend']).toMatchObject({ format: 'resend', person, eventType: 'message.sent' });
    expect(JSON.parse(deliveries['we_resend']!.payload)).toMatchObject({ type: 'email.delivered', data: { email_id: 'msg_1' } });
    expect(deliveries['we_postmark']).toMatchObject({ format: 'postmark', person });
    expect(JSON.parse(deliveries['we_postmark']!.payload)).toMatchObject({ RecordType: 'Delivery', MessageID: 'msg_1' });
    // Neither Resend nor Postmark has a user.unsubscribed: only the standard endpoint gets it.
    expect(Object.keys(byEndpoint('evt_unsubscribed'))).toEqual(['we_standard']);
  });

  it('a redelivered event adds no delivery', async () => {
    const { fanout, stored, attempted } = setup({ p1: { clientId: 'cl_1' } }, [endpoint('we_1', 'cl_1', ['*'])]);
    await fanout.deliver([{ event: event('p1'), ctx: ctx('evt_1') }]);
    await fanout.deliver([{ event: event('p1'), ctx: ctx('evt_1') }]);
    expect(stored).toHaveLength(1);
    expect(attempted.map((a) => a.length)).toEqual([1, 0]);
  });

  it('sends nothing for a deleted project, and waits for an unknown one only once', async () => {
    const { fanout, stored, lookups } = setup({ gone: 'deleted' }, [endpoint('we_1', 'cl_1', ['*'])]);
    await fanout.deliver([{ event: event('gone'), ctx: ctx('evt_1') }]);
    expect(lookups).toEqual(['gone']);
    const started = Date.now();
    await fanout.deliver([
      { event: event('unknown'), ctx: ctx('evt_2') },
      { event: event('unknown'), ctx: ctx('evt_3') },
    ]);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(250);
    const before = lookups.length;
    await fanout.deliver([{ event: event('unknown'), ctx: ctx('evt_4') }]);
    expect(lookups.length - before).toBe(1); // given up: no second wait
    expect(stored).toEqual([]);
  });
});
