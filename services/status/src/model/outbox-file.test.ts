import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@postbus/testing';
import { InMemorySubscriberStore } from '../../preview/in-memory-subscriber-store';
import { NotificationOutbox, type AttemptOutcome, type PendingNotification } from '../domain/notification-outbox';
import { OutboxFile } from './outbox-file';

/** An outbox kept in `file`, over a webhook sender that answers from a script (then `delivered`); each attempt is recorded. */
function outboxIn(file: string, subscribers: InMemorySubscriberStore, answers: AttemptOutcome[] = []) {
  const sent: Array<{ to: string; id: string }> = [];
  const outbox = new NotificationOutbox({
    subscribers,
    senders: {
      webhook: (subscriber, id) => (sent.push({ to: subscriber.address, id }), Promise.resolve(answers.shift() ?? 'delivered')),
      email: () => Promise.resolve('delivered'),
    },
    retryScheduleMs: [0, 300],
    lookupRetryMs: 20,
    file: new OutboxFile(file),
  });
  return { outbox, sent };
}

describe('the notification outbox in its file', () => {
  it('after a restart, takes up the retries it left pending, with the same id; the file holds no address or secret', async () => {
    const subscribers = new InMemorySubscriberStore();
    const hook = await subscribers.add(
      { kind: 'webhook', address: 'https://hooks.example/b', confirmedAt: new Date(), secret: 'whsec_secret' },
      new Date(),
    );
    const file = join(mkdtempSync(join(tmpdir(), 'status-outbox-')), 'outbox.json');
    const before = outboxIn(file, subscribers, ['failed']);
    await before.outbox.enqueue(hook.id, { kind: 'webhook', body: '{"n":1}' });
    await waitFor(() => before.sent.length === 1, { timeoutMs: 5_000, intervalMs: 5, what: 'the first attempt' });
    await before.outbox.stop(); // the retry is 300 ms away: the process ends before it
    const kept = JSON.parse(readFileSync(file, 'utf8')) as PendingNotification[];
    expect(kept).toEqual([expect.objectContaining({ id: before.sent[0]!.id, subscriberId: hook.id, attempts: 1 })]);
    expect(readFileSync(file, 'utf8')).not.toMatch(/hooks\.example|whsec_/);

    const after = outboxIn(file, subscribers);
    await after.outbox.resume();
    await waitFor(() => after.outbox.size() === 0, { timeoutMs: 5_000, intervalMs: 5, what: 'the retry after the restart' });
    expect(after.sent).toEqual([{ to: 'https://hooks.example/b', id: before.sent[0]!.id }]);
    await after.outbox.stop();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([]);
  });
});
