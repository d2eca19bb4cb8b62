import type { Logger } from '@postbus/logger';
import { listNames } from './message-lists';
import type { MessageListing, MessageRecords } from './ports/messages';
import type { ScheduleDecision } from './ports/schedules';
import type { MessageDoc } from './message-records';
import { MessageRetention, outlivesCutoff } from './message-retention';

const DAY = 86_400_000;
const NOW = new Date('2026-07-01T00:00:00.000Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY);
const daysAfter = (n: number) => new Date(NOW.getTime() + n * DAY);

const message = (id: string, email: string, userId: string | null, sendAt?: Date): MessageDoc =>
  ({ _id: id, projectId: 'p1', email, userId, ...(sendAt ? { sendAt } : {}) }) as MessageDoc;

/** Lists of (message id, time) in memory; a store that deletes what it holds; the schedule's decisions, by message id. */
function fakes(
  entries: Array<{ list: string; at: Date; id: string }>,
  messages: MessageDoc[],
  decisions: Record<string, ScheduleDecision> = {},
) {
  const held = new Map(messages.map((m) => [m._id, m]));
  const log: string[] = [];
  const cutoffs: Date[] = [];
  let kept = [...entries];
  const lists = {
    trimAll: async (cutoff: Date, onChunk: (list: string, ids: string[]) => Promise<void>) => {
      cutoffs.push(cutoff);
      const names = [...new Set(kept.map((e) => e.list))];
      let removed = 0;
      for (const list of names) {
        const old = kept.filter((e) => e.list === list && e.at < cutoff);
        if (old.length === 0) continue;
        await onChunk(
          list,
          old.map((e) => e.id),
        );
        kept = kept.filter((e) => !old.includes(e));
        removed += old.length;
      }
      return { lists: names.length, removed };
    },
    trim: (list: string, cutoff: Date) => {
      log.push(`trim ${list} ${cutoff.toISOString()}`);
      return Promise.resolve(0);
    },
    forget: (ids: string[]) => {
      log.push(`forget ${ids.join(',')}`);
      return Promise.resolve();
    },
    listAgain: (list: string, ids: string[], at: Date) => {
      log.push(`list again ${list} ${ids.join(',')} ${at.toISOString()}`);
      kept.push(...ids.map((id) => ({ list, at, id })));
      return Promise.resolve();
    },
  } as unknown as MessageListing;
  const store = {
    messagesById: (ids: string[]) => Promise.resolve(new Map(ids.flatMap((id) => (held.has(id) ? [[id, held.get(id)!]] : [])))),
    delete: (ids: string[]) => {
      log.push(`delete ${ids.join(',')}`);
      const gone = ids.filter((id) => held.delete(id));
      return Promise.resolve({ messages: gone.length, events: gone.length * 2 });
    },
  } as unknown as MessageRecords;
  const attachments = {
    deleteSets: (projectId: string, ids: string[]) => {
      log.push(`delete attachments of ${projectId}: ${ids.join(',')}`);
      return Promise.resolve(ids.length * 3);
    },
  };
  const schedule = {
    forget: (ids: string[]) => {
      log.push(`forget schedule ${ids.join(',')}`);
      return Promise.resolve();
    },
    decisions: (ids: string[]) => Promise.resolve(new Map(ids.flatMap((id) => (decisions[id] ? [[id, decisions[id]] as const] : [])))),
  };
  const logger = { info: jest.fn(), warn: jest.fn() } as unknown as Logger & { info: jest.Mock };
  const retention = new MessageRetention({ store, lists, attachments, schedule, logger, retentionDays: 30, intervalMs: 60_000 });
  return { retention, log, cutoffs, held, logger };
}

describe('purge', () => {
  it('deletes the messages leaving their project’s list before the cutoff, and trims their people’s lists', async () => {
    const old = message('old', 'ada@example.org', 'u-1');
    const anon = message('anon', 'bob@example.org', null);
    const recent = message('recent', 'ada@example.org', 'u-1');
    const { retention, log, cutoffs, held, logger } = fakes(
      [
        { list: listNames.project('p1'), at: daysAgo(40), id: 'old' },
        { list: listNames.project('p1'), at: daysAgo(31), id: 'anon' },
        { list: listNames.project('p1'), at: daysAgo(29), id: 'recent' },
        // A status list only loses its entries: its messages go with the project's list.
        { list: listNames.status('p1', 'bounced'), at: daysAgo(40), id: 'old' },
      ],
      [old, anon, recent],
    );
    const result = await retention.purge(NOW);
    expect(cutoffs).toEqual([daysAgo(30)]);
    expect([...held.keys()]).toEqual(['recent']);
    const cutoff = daysAgo(30).toISOString();
    expect(log).toEqual([
      'forget schedule ',
      'delete old,anon',
      'forget old,anon',
      // After the messages: each person once.
      `trim ${listNames.recipient('p1', 'ada@example.org')} ${cutoff}`,
      `trim ${listNames.user('p1', 'u-1')} ${cutoff}`,
      `trim ${listNames.recipient('p1', 'bob@example.org')} ${cutoff}`,
    ]);
    expect(result).toEqual({ lists: 2, entries: 3, messages: 2, events: 4, attachmentChunks: 0 });
    expect(logger.info).toHaveBeenCalledWith('purged old messages', { cutoff, messages: 2, events: 4, attachmentChunks: 0, lists: 2 });
  });

  it('with nothing old deletes nothing and logs nothing', async () => {
    const { retention, log, logger } = fakes(
      [{ list: listNames.project('p1'), at: daysAgo(1), id: 'm' }],
      [message('m', 'a@example.org', null)],
    );
    expect(await retention.purge(NOW)).toEqual({ lists: 1, entries: 0, messages: 0, events: 0, attachmentChunks: 0 });
    expect(log).toEqual([]);
    expect(logger.info).not.toHaveBeenCalled();
  });

  it('resumes a purge cut short: entries pointing at messages already gone delete nothing more', async () => {
    const { retention, log } = fakes([{ list: listNames.project('p1'), at: daysAgo(60), id: 'gone' }], []);
    expect(await retention.purge(NOW)).toEqual({ lists: 1, entries: 1, messages: 0, events: 0, attachmentChunks: 0 });
    expect(log).toEqual(['forget schedule ', 'delete gone', 'forget gone']);
  });

  it('drops the schedule (decision and any wait) of the scheduled messages it purges, before the messages', async () => {
    const { retention, log } = fakes(
      [
        { list: listNames.project('p1'), at: daysAgo(40), id: 'was-scheduled' },
        { list: listNames.project('p1'), at: daysAgo(40), id: 'plain' },
        { list: listNames.project('p1'), at: daysAgo(29), id: 'scheduled-recent' },
      ],
      [
        message('was-scheduled', 'ada@example.org', null, daysAgo(39)),
        message('plain', 'ada@example.org', null),
        message('scheduled-recent', 'ada@example.org', null, daysAgo(28)),
      ],
      { 'was-scheduled': 'send' },
    );
    expect(await retention.purge(NOW)).toMatchObject({ messages: 2 });
    expect(log.slice(0, 3)).toEqual(['forget schedule was-scheduled', 'delete was-scheduled,plain', 'forget was-scheduled,plain']);
    expect(log.join('\n')).not.toContain('scheduled-recent');
  });

  it('deletes the attachments of the sets listed before the cutoff, whether or not their trigger ever became a message', async () => {
    const { retention, log } = fakes(
      [
        { list: listNames.attachments('p1'), at: daysAgo(31), id: 'never-published' },
        { list: listNames.attachments('p1'), at: daysAgo(29), id: 'recent' },
      ],
      [],
    );
    expect(await retention.purge(NOW)).toEqual({ lists: 1, entries: 1, messages: 0, events: 0, attachmentChunks: 3 });
    expect(log).toEqual(['delete attachments of p1: never-published']);
  });

  it('keeps a scheduled message not sent nor cancelled yet past the cutoff, and lists it again where retention will find it', async () => {
    const { retention, log, held } = fakes(
      [
        { list: listNames.project('p1'), at: daysAgo(40), id: 'waiting' },
        { list: listNames.project('p1'), at: daysAgo(40), id: 'plain' },
        { list: listNames.status('p1', 'scheduled'), at: daysAgo(40), id: 'waiting' },
        { list: listNames.attachments('p1'), at: daysAgo(40), id: 'waiting' },
      ],
      [message('waiting', 'ada@example.org', 'u-1', daysAfter(5)), message('plain', 'bob@example.org', null)],
    );
    expect(await retention.purge(NOW)).toMatchObject({ messages: 1, attachmentChunks: 0 });
    expect([...held.keys()]).toEqual(['waiting']);
    const now = NOW.toISOString();
    expect(log).toEqual([
      `list again ${listNames.project('p1')} waiting ${now}`,
      'forget schedule ',
      'delete plain',
      'forget plain',
      `trim ${listNames.recipient('p1', 'bob@example.org')} ${daysAgo(30).toISOString()}`,
      `list again ${listNames.status('p1', 'scheduled')} waiting ${now}`,
      `list again ${listNames.attachments('p1')} waiting ${now}`,
      'delete attachments of p1: ',
    ]);
  });

  it('purges a scheduled message once it has gone and its send_at passed the cutoff, and a cancelled one at once', async () => {
    const sendAt = daysAfter(5);
    const decisions: Record<string, ScheduleDecision> = {};
    const { retention, held } = fakes(
      [
        { list: listNames.project('p1'), at: daysAgo(40), id: 'later' },
        { list: listNames.project('p1'), at: daysAgo(40), id: 'canceled' },
      ],
      [message('later', 'ada@example.org', null, sendAt), message('canceled', 'ada@example.org', null, sendAt)],
      decisions,
    );
    decisions['canceled'] = 'cancel';
    await retention.purge(NOW);
    expect([...held.keys()]).toEqual(['later']);
    // Sent at its time: 30 days after its send_at it goes, not before.
    decisions['later'] = 'send';
    await retention.purge(daysAfter(31));
    expect([...held.keys()]).toEqual(['later']);
    await retention.purge(daysAfter(62));
    expect([...held.keys()]).toEqual([]);
  });
});

describe('outlivesCutoff', () => {
  const cutoff = new Date('2026-06-01T00:00:00.000Z');
  const before = new Date('2026-05-31T00:00:00.000Z');
  const after = new Date('2026-06-02T00:00:00.000Z');

  it.each([
    ['a message sent at once', {}, undefined, false],
    ['a scheduled message still waiting for its time', { sendAt: after }, undefined, true],
    ['a scheduled message past its time not taken yet (a worker far behind)', { sendAt: before }, undefined, true],
    ['a scheduled message sent after the cutoff', { sendAt: after }, 'send', true],
    ['a scheduled message sent before the cutoff', { sendAt: before }, 'send', false],
    ['a cancelled message whose time is still ahead', { sendAt: after }, 'cancel', false],
  ] as const)('%s', (_, message, decision, kept) => {
    expect(outlivesCutoff(message, decision, cutoff)).toBe(kept);
  });
});
