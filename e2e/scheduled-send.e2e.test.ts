import { Webhook } from 'standardwebhooks';
import { call, sleep, waitFor } from '@postbus/testing';
import { projectCall, withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';
import { startReceiver } from './webhook-receiver';

const DOMAIN = 'mail.scheduled.example';
const AHEAD_MS = 10_000;
/** What the issue promises: a scheduled message goes within this of its time. */
const PUNCTUAL_MS = 5_000;

/** Scheduled sends through the real stack: not before their time, then within 5 s; a cancelled one never; across a mailer killed and started again. */
describe('a send scheduled with send_at', () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient({ sendable: { domain: DOMAIN } }, (started) => ({ system, client } = started));

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);
  const send = (body: Record<string, unknown>) => api('POST', '/emails/welcome/send', body);
  const statusOf = async (id: string) => (await api('GET', `/messages/${id}`)).body as { status: string; send_at?: string };
  const atSink = async (id: string) => (await system.sink.client.search(`message-id:${id}@${DOMAIN}`, 10)).messages;

  it('holds a scheduled message until its time and sends it within 5 s after, never sends a cancelled one, and loses neither to a mailer restart', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await call(system.gatewayUrl, 'POST', '/v1/webhooks', {
        auth: client.auth,
        json: { url: receiver.url, events: ['message.scheduled', 'message.canceled', 'message.sent'], project_id: client.projectId },
      });
      expect(hook.status).toBe(201);

      const sendAt = new Date(Date.now() + AHEAD_MS);
      // Another offset than UTC's: the answer gives the same instant in UTC.
      const offset = new Date(sendAt.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      const kept = await send({ user: { email: 'kept@example.org' }, send_at: offset, metadata: { case: 'kept' } });
      expect(kept.status).toBe(200);
      expect(kept.body.send_at).toBe(sendAt.toISOString());
      const dropped = await send({ user: { email: 'dropped@example.org' }, send_at: sendAt.toISOString() });
      expect(dropped.status).toBe(200);
      const [keptId, droppedId] = [kept.body.message_id as string, dropped.body.message_id as string];

      for (const id of [keptId, droppedId])
        await waitFor(async () => ((await statusOf(id)).status === 'scheduled' ? true : undefined), { what: `${id} scheduled` });
      expect((await statusOf(keptId)).send_at).toBe(sendAt.toISOString());
      // The project's list is appended after the message is stored (which the read above shows), so
      // it may follow by a moment: wait until it lists two, then it must list exactly these two.
      const listed = await waitFor(
        async () => {
          const res = await api('GET', '/messages?status=scheduled');
          return (res.body.data as unknown[]).length >= 2 ? res : undefined;
        },
        { what: 'the scheduled list to show both messages' },
      );
      expect((listed.body.data as Array<{ id: string }>).map((m) => m.id).sort()).toEqual([keptId, droppedId].sort());

      const canceled = await api('POST', `/messages/${droppedId}/cancel`);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ id: droppedId, status: 'canceled' });
      expect(canceled.body.timeline.map((e: { event: string }) => e.event)).toEqual(['scheduled', 'canceled']);
      expect((await api('POST', `/messages/${droppedId}/cancel`)).body.status).toBe('canceled');

      // The mailer dies (SIGKILL) before the time: what it was to send is in its database. Its start
      // again waits for its consumer groups to drop the dead member; its scheduled sends do not.
      await system.services.mailer.kill();
      const restarted = system.restart('mailer');

      await sleep(Math.max(0, sendAt.getTime() - 300 - Date.now()));
      expect(await atSink(keptId)).toEqual([]);

      const arrived = await system.sink.client.waitForMessageId(`${keptId}@${DOMAIN}`, PUNCTUAL_MS + 2_000);
      const late = Date.parse(arrived.Created) - sendAt.getTime();
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(PUNCTUAL_MS);
      await restarted;
      await waitFor(async () => ((await statusOf(keptId)).status === 'sent' ? true : undefined), { what: 'kept sent' });

      // Well after its time, the cancelled one has not gone, and will not.
      await sleep(1_500);
      expect(await atSink(droppedId)).toEqual([]);
      expect((await statusOf(droppedId)).status).toBe('canceled');

      const tooLate = await api('POST', `/messages/${keptId}/cancel`);
      expect(tooLate.status).toBe(409);

      const verify = new Webhook(hook.body.secret as string);
      const bodies = () =>
        receiver.received.map((r) => verify.verify(r.body, r.headers) as { type: string; data: { message_id: string; send_at?: string } });
      const canceledHook = await waitFor(() => bodies().find((b) => b.type === 'message.canceled' && b.data.message_id === droppedId), {
        what: 'the message.canceled webhook',
      });
      expect(canceledHook.data).toMatchObject({ event: 'canceled', sequence: 2, send_at: sendAt.toISOString() });
      await waitFor(() => bodies().find((b) => b.type === 'message.sent' && b.data.message_id === keptId), { what: 'message.sent' });
      expect(bodies().find((b) => b.type === 'message.scheduled' && b.data.message_id === keptId)?.data).toMatchObject({
        sequence: 1,
        send_at: sendAt.toISOString(),
      });
      expect(bodies().filter((b) => b.data.message_id === droppedId && b.type === 'message.sent')).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a send_at in the past or 31 days ahead naming /send_at, in a send and in a batch item', async () => {
    const user = { email: 'when@example.org' };
    const past = await send({ user, send_at: new Date(Date.now() - 5 * 60_000).toISOString() });
    expect(past.status).toBe(422);
    expect(past.body.errors).toEqual([{ pointer: '/send_at', message: 'is in the past' }]);
    const far = await send({ user, send_at: new Date(Date.now() + 31 * 86_400_000).toISOString() });
    expect(far.status).toBe(422);
    expect(far.body.errors).toEqual([{ pointer: '/send_at', message: 'is more than 30 days ahead' }]);
    const notATime = await send({ user, send_at: 'tomorrow' });
    expect(notATime.status).toBe(400);
    expect(notATime.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/send_at');

    const batch = await api('POST', '/emails/batch', {
      messages: [
        { email_key: 'welcome', user, send_at: new Date(Date.now() + 31 * 86_400_000).toISOString() },
        { email_key: 'welcome', user: { email: 'later@example.org' }, send_at: new Date(Date.now() + 86_400_000).toISOString() },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data[0]).toMatchObject({ status: 'rejected', error: { status: 422, errors: [{ pointer: '/messages/0/send_at' }] } });
    expect(batch.body.data[1]).toMatchObject({ status: 'accepted', send_at: expect.any(String) });
    // A message sent without send_at was never waiting: it cannot be cancelled; an unknown id is a 404.
    const now = await send({ user: { email: 'now@example.org' } });
    await waitFor(async () => ((await statusOf(now.body.message_id as string)).status === 'sent' ? true : undefined), { what: 'sent' });
    expect((await api('POST', `/messages/${now.body.message_id as string}/cancel`)).status).toBe(409);
    expect((await api('POST', '/messages/msg_00000000000000000000000000000000/cancel')).status).toBe(404);
  });
});
