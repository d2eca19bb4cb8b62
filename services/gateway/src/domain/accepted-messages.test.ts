import type { FoundRecord, RecordLookup } from '@postbus/bus';
import { Topics, type Message } from '@postbus/contracts';
import { AcceptedMessages, type TriggerLane } from './accepted-messages';
import { messageIds } from './batch-send';

const NOW = Date.parse('2026-12-03T10:00:00.000Z');
const id = messageIds(undefined, () => NOW - 1_000)(0);
const trigger = (projectId: string) => ({
  messageId: id,
  projectId,
  emailId: 'e1',
  emailKey: 'receipt',
  templateId: 't1',
  templateVersion: 1,
  user: { email: 'ann@example.com', user_id: 'u1' },
  data: {},
  tags: ['t'],
  acceptedAt: new Date(NOW - 1_000).toISOString(),
});

/** A bus holding one trigger on a lane, and what was looked for. */
function setUp(options: { lane?: TriggerLane; projectId?: string; mailerHasRead?: boolean; hedgeMs?: number } = {}) {
  const lookups: RecordLookup[] = [];
  const record: FoundRecord = {
    partition: 2,
    offset: '41',
    timestamp: NOW - 990,
    value: Buffer.from(JSON.stringify(trigger(options.projectId ?? 'p1'))),
  };
  const accepted = new AcceptedMessages({
    find: (lookup) => {
      lookups.push(lookup);
      return Promise.resolve(lookup.topic === (options.lane ?? Topics.EmailCommands) && lookup.match(record.value) ? record : undefined);
    },
    mailerHasRead: () => Promise.resolve(options.mailerHasRead ?? false),
    windowMs: 15_000,
    maxAgeMs: 86_400_000,
    ...(options.hedgeMs !== undefined ? { hedgeMs: options.hedgeMs } : {}),
    now: () => NOW,
  });
  return { accepted, lookups };
}

describe('messages accepted that the mailer has not recorded', () => {
  it('46.1 reads as accepted from its trigger: recipient, email key, accepted_at, an empty timeline', async () => {
    const { accepted, lookups } = setUp();
    expect(await accepted.read('p1', id)).toMatchObject({
      id,
      project_id: 'p1',
      status: 'accepted',
      email: 'ann@example.com',
      user_id: 'u1',
      email_key: 'receipt',
      tags: ['t'],
      accepted_at: new Date(NOW - 1_000).toISOString(),
      timeline: [],
    });
    expect(lookups).toEqual([expect.objectContaining({ topic: Topics.EmailCommands, from: NOW - 1_000, until: NOW + 14_000 })]);
  });

  it('46.1 finds a batch item on the batch lane', async () => {
    const { accepted, lookups } = setUp({ lane: Topics.EmailBulk });
    expect(await accepted.read('p1', id)).toMatchObject({ id, status: 'accepted' });
    expect(lookups.map((l) => l.topic)).toEqual([Topics.EmailCommands, Topics.EmailBulk]);
  });

  it('46.1 another project’s message, or one the mailer has read, is not shown from the bus', async () => {
    expect(await setUp({ projectId: 'p2' }).accepted.read('p1', id)).toBeUndefined();
    expect(await setUp({ mailerHasRead: true }).accepted.read('p1', id)).toBeUndefined();
  });

  it('46.1 looks for nothing for an id that carries no time, or one older than the lanes keep', async () => {
    const { accepted, lookups } = setUp();
    expect(await accepted.read('p1', 'msg_0123')).toBeUndefined();
    expect(await accepted.read('p1', messageIds(undefined, () => NOW - 2 * 86_400_000)(0))).toBeUndefined();
    expect(await accepted.read('p1', messageIds(undefined, () => NOW + 60_000)(0))).toBeUndefined();
    expect(lookups).toEqual([]);
  });

  describe('a read: the mailer’s record first, the bus behind it', () => {
    const recorded = { id, status: 'sent' } as unknown as Message;
    const after =
      <T>(ms: number, value: T) =>
      () =>
        new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

    it('46.2 answers with the mailer’s record, not looking on the bus when it answers at once', async () => {
      const { accepted, lookups } = setUp({ hedgeMs: 30 });
      expect(await accepted.recordedOrAccepted('p1', id, () => Promise.resolve(recorded))).toBe(recorded);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(lookups).toEqual([]);
    });

    it('46.2 a fresh id the mailer is slow to answer for is looked for on the bus meanwhile, once', async () => {
      const { accepted, lookups } = setUp({ hedgeMs: 10 });
      const read = accepted.recordedOrAccepted('p1', id, () => {
        // The mailer's 404 comes after the hedge has looked on the bus.
        return new Promise((resolve) => setTimeout(() => resolve(lookups.length > 0 ? null : recorded), 60));
      });
      expect(await read).toMatchObject({ id, status: 'accepted' });
      expect(lookups).toHaveLength(1);
    });

    it('46.2 the mailer’s record wins over the trigger the hedge found', async () => {
      const { accepted, lookups } = setUp({ hedgeMs: 5 });
      expect(await accepted.recordedOrAccepted('p1', id, after(40, recorded))).toBe(recorded);
      expect(lookups).toHaveLength(1);
    });

    it('46.1 an id the mailer has no record of, or cannot answer for, reads from the bus', async () => {
      expect(await setUp().accepted.recordedOrAccepted('p1', id, () => Promise.resolve(null))).toMatchObject({ status: 'accepted' });
      expect(await setUp().accepted.recordedOrAccepted('p1', id, () => Promise.reject(new Error('down')))).toMatchObject({
        status: 'accepted',
      });
      await expect(
        setUp({ projectId: 'p2' }).accepted.recordedOrAccepted('p1', id, () => Promise.reject(new Error('down'))),
      ).rejects.toThrow('down');
      expect(await setUp({ projectId: 'p2' }).accepted.recordedOrAccepted('p1', id, () => Promise.resolve(null))).toBeNull();
    });

    it('46.2 a read does not look on the bus beside the mailer while another lookup is under way', async () => {
      const { accepted } = setUp({ hedgeMs: 5 });
      // A lookup the mailer's 404 asked for, still waiting on the bus (a slow find).
      let release: () => void = () => undefined;
      const slow = new Promise<void>((resolve) => (release = resolve));
      const deps = Reflect.get(accepted, 'deps') as { find: (l: RecordLookup) => Promise<FoundRecord | undefined> };
      const find = deps.find;
      let asked = 0;
      deps.find = async (lookup) => {
        asked++;
        await slow;
        return find(lookup);
      };
      const needed = accepted.read('p1', id);
      expect(await accepted.recordedOrAccepted('p1', id, after(30, recorded))).toBe(recorded);
      expect(asked).toBe(1); // the needed lookup alone: the hedge stood back
      release();
      expect(await needed).toMatchObject({ status: 'accepted' });
    });

    it('46.2 an old id is looked for on the bus only after the mailer has answered', async () => {
      const { accepted, lookups } = setUp({ hedgeMs: 1 });
      const old = messageIds(undefined, () => NOW - 3_600_000)(0);
      await accepted.recordedOrAccepted('p1', old, async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(lookups).toEqual([]);
        return null;
      });
      expect(lookups).toHaveLength(2);
    });
  });
});
