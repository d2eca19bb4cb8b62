import { waitFor } from '@postbus/testing';
import type { NotificationMail } from './notification-mail';
import { NotificationOutbox, type AttemptOutcome } from './notification-outbox';
import { InMemorySubscriberStore } from '../../preview/in-memory-subscriber-store';
import type { Subscriber } from './ports';

const mail: NotificationMail = { subject: 'Incident: API down', text: 'Investigating', unsubscribe: 'https://status.example/u?token=t' };

interface Sent {
  to: string;
  id?: string;
}

/** An outbox over fake senders that answer from a script (then `delivered`); each attempt is recorded. */
function outboxWith(options: { subscribers: InMemorySubscriberStore; answers?: AttemptOutcome[]; schedule?: number[] }) {
  const sent: Sent[] = [];
  const answers = options.answers ?? [];
  const answer = () => Promise.resolve(answers.shift() ?? 'delivered');
  const outbox = new NotificationOutbox({
    subscribers: options.subscribers,
    senders: {
      webhook: (subscriber: Subscriber, id: string) => (sent.push({ to: subscriber.address, id }), answer()),
      email: (subscriber: Subscriber) => (sent.push({ to: subscriber.address }), answer()),
    },
    retryScheduleMs: options.schedule ?? [0, 20, 20],
    lookupRetryMs: 20,
  });
  return { outbox, sent };
}

describe('the status notification outbox', () => {
  const confirmed = { confirmedAt: new Date(), secret: null };

  it('retries a mail whose relay failed until it goes, and gives up when the schedule runs out', async () => {
    const subscribers = new InMemorySubscriberStore();
    const reader = await subscribers.add({ kind: 'email', address: 'reader@example.com', ...confirmed }, new Date());
    const { outbox, sent } = outboxWith({ subscribers, answers: ['failed', 'failed'] });
    await outbox.enqueue(reader.id, { kind: 'email', mail });
    await waitFor(() => outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'the mail delivered on its third attempt' });
    expect(sent).toHaveLength(3);

    const failing = outboxWith({ subscribers, answers: ['failed', 'failed', 'failed', 'failed'] });
    await failing.outbox.enqueue(reader.id, { kind: 'email', mail });
    await waitFor(() => failing.outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'the schedule to run out' });
    expect(failing.sent).toHaveLength(3); // one attempt per step of the schedule, then no more
    await Promise.all([outbox.stop(), failing.outbox.stop()]);
  });

  it('sends at most its concurrency at once, and every notification in the end', async () => {
    const subscribers = new InMemorySubscriberStore();
    const readers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => subscribers.add({ kind: 'email', address: `r${i}@example.com`, ...confirmed }, new Date())),
    );
    let inFlight = 0;
    let most = 0;
    const delivered: string[] = [];
    const outbox = new NotificationOutbox({
      subscribers,
      senders: {
        webhook: () => Promise.resolve('delivered'),
        email: async (subscriber) => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          delivered.push(subscriber.address);
          return 'delivered';
        },
      },
      retryScheduleMs: [0],
      concurrency: 3,
    });
    for (const reader of readers) await outbox.enqueue(reader.id, { kind: 'email', mail });
    await waitFor(() => outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'all 20 mails' });
    expect(most).toBe(3);
    expect(delivered.sort()).toEqual(readers.map((r) => r.address).sort());
    await outbox.stop();
  });

  it('unsubscribes a webhook that answers 410, and sends nothing to a subscriber gone since the event', async () => {
    const subscribers = new InMemorySubscriberStore();
    const hook = await subscribers.add(
      { kind: 'webhook', address: 'https://hooks.example/a', confirmedAt: new Date(), secret: 'whsec_x' },
      new Date(),
    );
    const reader = await subscribers.add({ kind: 'email', address: 'gone@example.com', ...confirmed }, new Date());
    const { outbox, sent } = outboxWith({ subscribers, answers: ['gone'] });
    await outbox.enqueue(hook.id, { kind: 'webhook', body: '{}' });
    await waitFor(() => outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'the 410' });
    expect(await subscribers.findById(hook.id)).toBeNull();

    await subscribers.remove(reader.id);
    await outbox.enqueue(reader.id, { kind: 'email', mail });
    await waitFor(() => outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'the notification to end' });
    expect(sent.map((s) => s.to)).toEqual(['https://hooks.example/a']);
    await outbox.stop();
  });

  it('while the subscriber cannot be read, waits without spending an attempt', async () => {
    const subscribers = new InMemorySubscriberStore();
    const reader = await subscribers.add({ kind: 'email', address: 'later@example.com', ...confirmed }, new Date());
    let down = 3;
    const findById = subscribers.findById.bind(subscribers);
    subscribers.findById = (id) => (down-- > 0 ? Promise.reject(new Error('database down')) : findById(id));
    const { outbox, sent } = outboxWith({ subscribers, schedule: [0] }); // one attempt only
    await outbox.enqueue(reader.id, { kind: 'email', mail });
    await waitFor(() => outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'the mail once the database is back' });
    expect(sent).toEqual([{ to: 'later@example.com' }]);
    await outbox.stop();
  });
});
