import type { EmailTriggerCommand } from '@postbus/contracts';
import type { MessageListing, MessageRecords, StatusCounter } from './ports/messages';
import type { RetrySchedule } from './ports/schedules';
import type { SuppressionLookup } from './ports/suppressions';
import type { EventDoc, MessageDoc } from './message-records';
import type { Deliverer, Outcome } from './delivery/deliverer';
import type { ScheduledSends } from './scheduled-sends';
import type { Timeline } from './timeline';
import { messageDocFromTrigger, TriggerDelivery } from './trigger-delivery';

const trigger = (messageId: string, user: Record<string, unknown> = { email: `${messageId}@example.org` }): EmailTriggerCommand => ({
  messageId,
  projectId: 'p1',
  emailId: 'em_1',
  emailKey: 'welcome',
  templateId: 'tpl_1',
  templateVersion: 4,
  user,
  data: { plan: 'pro' },
  acceptedAt: '2026-06-01T09:00:00.000Z',
});

const ev = (id: string, event: EventDoc['event'], sequence: number): EventDoc => ({
  _id: `${id}:${sequence}`,
  messageId: id,
  projectId: 'p1',
  event,
  sequence,
  at: new Date(),
});

interface Options {
  /** Messages stored already (a redelivered trigger), with their timelines. */
  stored?: Record<string, EventDoc[]>;
  /** Messages with a retry scheduled. */
  pending?: string[];
  /** Messages whose listing fails. */
  listFails?: string[];
  /** Messages whose delivery throws. */
  deliveryThrows?: string[];
}

function fakes(options: Options = {}) {
  const log: string[] = [];
  const stored = new Map(Object.entries(options.stored ?? {}));
  const store = {
    insertOne: (m: MessageDoc) => {
      const existed = stored.has(m._id);
      if (!existed) stored.set(m._id, []);
      log.push(`insert ${m._id}${existed ? ' (existed)' : ''}`);
      return Promise.resolve(existed);
    },
    timeline: (id: string) => Promise.resolve(stored.get(id) ?? []),
  } as unknown as MessageRecords;
  const lists = {
    accepted: (m: MessageDoc, known: string) => {
      log.push(`list ${m._id} ${known}`);
      return options.listFails?.includes(m._id) ? Promise.reject(new Error(`listing ${m._id} failed`)) : Promise.resolve();
    },
  } as unknown as MessageListing;
  const retries = { pending: (id: string) => Promise.resolve(options.pending?.includes(id) ?? false) } as unknown as RetrySchedule;
  const suppressions = {
    reasonFor: (m: MessageDoc) => Promise.resolve(m.email.startsWith('unsub') ? 'unsubscribed' : undefined),
  } as unknown as SuppressionLookup;
  const deliverer = {
    deliver: (m: MessageDoc, reason: string | undefined) => {
      log.push(`deliver ${m._id}${reason ? ` (${reason})` : ''}`);
      if (options.deliveryThrows?.includes(m._id)) return Promise.reject(new Error('boom'));
      return Promise.resolve<Outcome>(reason ? { event: 'suppressed', reason } : { event: 'sent' });
    },
  } as unknown as Deliverer;
  const timeline = {
    recordAttempt: (m: MessageDoc, attempt: number, outcome: Outcome) => {
      log.push(`record ${m._id} #${attempt} ${outcome.event}`);
      return Promise.resolve({ event: outcome.event });
    },
    recordEngagement: (m: MessageDoc, event: string, _at: Date, details: { reason?: string }) => {
      log.push(`engage ${m._id} ${event} (${details.reason ?? ''})`);
      return Promise.resolve(true);
    },
    republish: (m: MessageDoc, events: EventDoc[]) => {
      log.push(`republish ${m._id} ${events.map((e) => e.event).join(',')}`);
      return Promise.resolve();
    },
  } as unknown as Timeline;
  const rollups = {
    count: (projectId: string, status: string, at: Date) => log.push(`count ${projectId} ${status} ${at.toISOString()}`),
  } as unknown as StatusCounter;
  const scheduled = {
    accept: (m: MessageDoc, known: string) => {
      log.push(`schedule ${m._id} ${known} for ${m.sendAt?.toISOString()}`);
      return Promise.resolve();
    },
  } as unknown as ScheduledSends;
  const delivery = new TriggerDelivery({ store, suppressions, retries, deliverer, timeline, lists, rollups, scheduled });
  return { delivery, log };
}

describe('messageDocFromTrigger', () => {
  it('is the message as accepted: the address and the user id from the user, acceptance time from the trigger', () => {
    const before = Date.now();
    const doc = messageDocFromTrigger(trigger('msg_1', { email: 'ada@example.org', user_id: 'u-1', name: 'Ada' }));
    expect(doc).toMatchObject({
      _id: 'msg_1',
      projectId: 'p1',
      emailId: 'em_1',
      emailKey: 'welcome',
      templateId: 'tpl_1',
      templateVersion: 4,
      email: 'ada@example.org',
      userId: 'u-1',
      user: { email: 'ada@example.org', user_id: 'u-1', name: 'Ada' },
      data: { plan: 'pro' },
      acceptedAt: new Date('2026-06-01T09:00:00.000Z'),
    });
    expect(doc.createdAt.getTime()).toBeGreaterThanOrEqual(before);
  });

  it("keeps the template's revision and the language the send named, for every attempt's render; nothing of them when absent", () => {
    const doc = messageDocFromTrigger({ ...trigger('msg_1'), templateRevision: 12, language: 'pt-BR' });
    expect(doc).toMatchObject({ templateVersion: 4, templateRevision: 12, language: 'pt-BR' });
    const plain = messageDocFromTrigger(trigger('msg_2'));
    expect(plain).not.toHaveProperty('templateRevision');
    expect(plain).not.toHaveProperty('language');
  });

  it('has no user id unless the user’s is a string', () => {
    expect(messageDocFromTrigger(trigger('msg_1', { email: 'a@example.org' })).userId).toBeNull();
    expect(messageDocFromTrigger(trigger('msg_1', { email: 'a@example.org', user_id: 42 })).userId).toBeNull();
  });

  it('keeps the copies the trigger carried, and has none when it carried none', () => {
    const doc = messageDocFromTrigger({ ...trigger('msg_1'), cc: ['bo@example.org'], bcc: ['cy@example.org'] });
    expect(doc).toMatchObject({ cc: ['bo@example.org'], bcc: ['cy@example.org'] });
    expect('cc' in messageDocFromTrigger(trigger('msg_1')) || 'bcc' in messageDocFromTrigger(trigger('msg_1'))).toBe(false);
  });
});

describe('a scheduled trigger (send_at)', () => {
  it('is stored and left to wait for its time, new or redelivered: nothing is delivered now', async () => {
    const { delivery, log } = fakes({ stored: { msg_2: [] } });
    const at = '2026-06-01T10:00:00.000Z';
    await delivery.one(messageDocFromTrigger({ ...trigger('msg_1'), sendAt: at }));
    await delivery.one(messageDocFromTrigger({ ...trigger('msg_2'), sendAt: at }));
    expect(log).toEqual(['insert msg_1', `schedule msg_1 new for ${at}`, 'insert msg_2 (existed)', `schedule msg_2 maybe-seen for ${at}`]);
  });
});

describe('a new trigger', () => {
  it('is stored, counted as queued on its acceptance day, listed as new, delivered and its first attempt recorded', async () => {
    const { delivery, log } = fakes();
    await delivery.one(messageDocFromTrigger(trigger('msg_1')));
    expect(log).toEqual([
      'insert msg_1',
      'count p1 queued 2026-06-01T09:00:00.000Z',
      'list msg_1 new',
      'deliver msg_1',
      'record msg_1 #1 sent',
    ]);
  });

  it('to a suppressed address is delivered with its reason (the deliverer suppresses it)', async () => {
    const { delivery, log } = fakes();
    await delivery.one(messageDocFromTrigger(trigger('msg_1', { email: 'unsub@example.org' })));
    expect(log).toContain('deliver msg_1 (unsubscribed)');
    expect(log).toContain('record msg_1 #1 suppressed');
  });

  it('whose listing fails is still delivered and recorded, and fails only after that', async () => {
    const { delivery, log } = fakes({ listFails: ['msg_1'] });
    await expect(delivery.one(messageDocFromTrigger(trigger('msg_1')))).rejects.toThrow('listing msg_1 failed');
    expect(log).toContain('record msg_1 #1 sent');
  });
});

describe('a redelivered trigger', () => {
  it('whose message has an outcome only re-emits its timeline: nothing is sent or counted again', async () => {
    const { delivery, log } = fakes({ stored: { msg_1: [ev('msg_1', 'sent', 2)] } });
    await delivery.one(messageDocFromTrigger(trigger('msg_1')));
    expect(log).toEqual(['insert msg_1 (existed)', 'list msg_1 maybe-seen', 'republish msg_1 sent']);
  });

  it('whose retry is scheduled is left to the retry worker', async () => {
    const { delivery, log } = fakes({ stored: { msg_1: [ev('msg_1', 'deferred', 2)] }, pending: ['msg_1'] });
    await delivery.one(messageDocFromTrigger(trigger('msg_1')));
    expect(log).toEqual(['insert msg_1 (existed)', 'list msg_1 maybe-seen']);
  });

  it('that stopped before an outcome was stored is delivered as the attempt after its deferrals', async () => {
    const { delivery, log } = fakes({ stored: { msg_1: [ev('msg_1', 'deferred', 2)], msg_2: [] } });
    await delivery.one(messageDocFromTrigger(trigger('msg_1')));
    await delivery.one(messageDocFromTrigger(trigger('msg_2')));
    expect(log.filter((l) => l.startsWith('record'))).toEqual(['record msg_1 #2 sent', 'record msg_2 #1 sent']);
    expect(log.filter((l) => l.startsWith('count'))).toEqual([]);
  });
});

describe('a run of triggers', () => {
  it('delivers each message once (a trigger repeated in the run shares its outcome) and returns the indexes of those that failed', async () => {
    const { delivery, log } = fakes({ deliveryThrows: ['msg_2'] });
    const failed = await delivery.run([trigger('msg_1'), trigger('msg_2'), trigger('msg_1'), trigger('msg_3'), trigger('msg_2')]);
    expect(failed).toEqual([1, 4]);
    expect(log.filter((l) => l.startsWith('insert'))).toEqual(['insert msg_1', 'insert msg_2', 'insert msg_3']);
    expect(log.filter((l) => l.startsWith('record')).sort()).toEqual(['record msg_1 #1 sent', 'record msg_3 #1 sent']);
  });
});

describe('a test trigger (sent with a test key)', () => {
  const testTrigger = (id: string, email: string): EmailTriggerCommand => ({ ...trigger(id, { email }), test: true });

  it('is a test message, delivered (to the simulated relay) and listed, but counted in no stats', async () => {
    const { delivery, log } = fakes();
    const doc = messageDocFromTrigger(testTrigger('msg_1', 'a@example.org'));
    expect(doc.test).toBe(true);
    await delivery.one(doc);
    expect(log).toEqual(['insert msg_1', 'list msg_1 new', 'deliver msg_1', 'record msg_1 #1 sent']);
  });

  it('to +complaint gets its simulated complaint after it is sent; a real message to such an address does not', async () => {
    const { delivery, log } = fakes();
    await delivery.one(messageDocFromTrigger(testTrigger('msg_1', 'c+complaint@example.org')));
    await delivery.one(messageDocFromTrigger(trigger('msg_2', { email: 'c+complaint@example.org' })));
    expect(log.filter((l) => l.startsWith('record') || l.startsWith('engage'))).toEqual([
      'record msg_1 #1 sent',
      'engage msg_1 complained (simulated complaint (test mode))',
      'record msg_2 #1 sent',
    ]);
  });

  it('redelivered after its sent was stored gets the complaint the first delivery may not have recorded, once', async () => {
    const { delivery, log } = fakes({
      stored: {
        msg_1: [{ ...ev('msg_1', 'sent', 2), attempt: 1 }],
        msg_2: [{ ...ev('msg_2', 'sent', 2), attempt: 1 }, ev('msg_2', 'complained', 3)],
      },
    });
    await delivery.one(messageDocFromTrigger(testTrigger('msg_1', 'c+complaint@example.org')));
    await delivery.one(messageDocFromTrigger(testTrigger('msg_2', 'c+complaint@example.org')));
    expect(log.filter((l) => l.startsWith('engage'))).toEqual(['engage msg_1 complained (simulated complaint (test mode))']);
  });
});
