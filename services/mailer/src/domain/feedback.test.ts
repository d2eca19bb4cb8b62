import type { FeedbackBounceEvent } from '@postbus/contracts';
import type { MessageDoc } from './message-records';
import type { MessageRecords } from './ports/messages';
import type { SoftBounceCounts } from './ports/suppressions';
import { Engagements } from './engagements';
import { Feedback } from './feedback';
import { SendPathPriority } from '@postbus/bus';
import type { SuppressionList } from './suppression-list';
import type { Timeline } from './timeline';

const P = 'p1';
const ADDRESS = 'slow@example.org';

/** Messages to one address, a timeline that records each engagement once per message, soft bounces counted per address. */
function fakes() {
  const messages = new Map<string, MessageDoc>();
  const recorded = new Set<string>();
  const softBounces = new Map<string, number>();
  const blocked: Array<{ reason: string; messageId?: string }> = [];
  const blockedAddresses: string[] = [];
  const store = {
    messagesById: (ids: string[]) => Promise.resolve(new Map(ids.flatMap((id) => (messages.has(id) ? [[id, messages.get(id)!]] : [])))),
    message: (_projectId: string, id: string) => Promise.resolve(messages.get(id)),
    timeline: () => Promise.resolve([]),
    deliveryHistories: (ids: string[]) => Promise.resolve(new Map(ids.map((id) => [id, []]))),
  } as unknown as MessageRecords;
  const record = (m: MessageDoc, event: string) => {
    const key = `${m._id}:${event}`;
    const first = !recorded.has(key);
    recorded.add(key);
    return first;
  };
  const timeline = {
    recordEngagement: (m: MessageDoc, event: string) => Promise.resolve(record(m, event)),
    recordEngagements: (entries: Array<{ message: MessageDoc; event: string }>) =>
      Promise.resolve(entries.map((e) => record(e.message, e.event))),
    recordCopyReport: (m: MessageDoc, copy: { email: string; kind: string }, event: string) =>
      Promise.resolve(record(m, `${copy.kind}:${copy.email}:${event}`)),
  } as unknown as Timeline;
  const suppressions: SoftBounceCounts = {
    countSoftBounce: (projectId: string, email: string) => {
      const count = (softBounces.get(email) ?? 0) + 1;
      softBounces.set(email, count);
      return Promise.resolve(count);
    },
    clearSoftBounces: (projectId: string, email: string) => {
      softBounces.delete(email);
      return Promise.resolve();
    },
  };
  const suppressionList = {
    block: (requests: Array<{ email: string; reason: string; messageId?: string }>) => {
      blocked.push(...requests.map(({ reason, messageId }) => ({ reason, messageId })));
      blockedAddresses.push(...requests.map(({ email }) => email));
      return Promise.resolve();
    },
    unsubscribed: (_projectId: string, email: string) => {
      blocked.push({ reason: 'unsubscribed' });
      blockedAddresses.push(email);
      return Promise.resolve();
    },
  } as unknown as SuppressionList;
  const engagements = new Engagements({ store, timeline, suppressionList, suppressions, publisher: {} as never });
  const feedback = new Feedback({
    store,
    timeline,
    suppressions,
    suppressionList,
    engagements,
    lists: { reached: () => Promise.resolve() } as never,
    rollups: { count: () => undefined },
    softBounceLimit: 3,
    sendPath: new SendPathPriority({ whileSendingPerSecond: 50 }),
  });
  let n = 0;
  const sent = (email = ADDRESS) => {
    const id = `msg_${++n}`;
    messages.set(id, { _id: id, projectId: P, email } as MessageDoc);
    return id;
  };
  const delayed = (messageId: string): FeedbackBounceEvent => ({
    messageId,
    class: 'soft',
    action: 'delayed',
    format: 'rfc3464',
    status: '4.2.0',
    at: new Date().toISOString(),
  });
  const refused = (messageId: string): FeedbackBounceEvent => ({ ...delayed(messageId), class: 'hard', action: 'failed', status: '5.1.1' });
  const copied = (copies: Pick<MessageDoc, 'cc' | 'bcc' | 'test'>) => {
    const id = sent();
    messages.set(id, { ...messages.get(id)!, ...copies });
    return id;
  };
  return { feedback, engagements, blocked, blockedAddresses, recorded, sent, copied, delayed, refused, softBounces };
}

describe('soft bounces', () => {
  it('suppress the address once SOFT_BOUNCE_LIMIT of its messages soft-bounced, each message counted once', async () => {
    const { feedback, blocked, sent, delayed } = fakes();
    const first = sent();
    await feedback.bounce(delayed(first));
    await feedback.bounce(delayed(first)); // its MTA's second delay notice
    await feedback.bounce(delayed(sent()));
    expect(blocked).toEqual([]);
    const third = sent();
    await feedback.bounce(delayed(third));
    expect(blocked).toEqual([{ reason: 'soft_bounce_limit', messageId: third }]);
  });

  it('count in a row: a message opened or clicked since starts the count again', async () => {
    const { feedback, engagements, blocked, sent, delayed } = fakes();
    await feedback.bounce(delayed(sent()));
    await feedback.bounce(delayed(sent()));
    const opened = sent();
    await engagements.record({ messageId: opened, projectId: P, at: new Date().toISOString() }, 'opened', 'evt-1');
    await feedback.bounce(delayed(sent()));
    await feedback.bounce(delayed(sent()));
    expect(blocked).toEqual([]);
    await feedback.bounce(delayed(sent()));
    expect(blocked).toEqual([expect.objectContaining({ reason: 'soft_bounce_limit' })]);
  });
});

describe('a run of reports', () => {
  it('is recorded together; a second report about a message or an address of the run is left to the one-by-one path', async () => {
    const { feedback, blocked, sent, delayed, refused, softBounces } = fakes();
    const first = sent();
    const other = sent('other@example.org');
    const dead = sent('dead@example.org');
    const reports = [delayed(first), delayed(first), delayed(other), delayed(sent()), refused(dead), delayed('msg_gone')];
    expect(await feedback.bounces(reports)).toEqual([1, 3]);
    expect(blocked).toEqual([{ reason: 'hard_bounce', messageId: dead }]);
    expect(Object.fromEntries(softBounces)).toEqual({ [ADDRESS]: 1, 'other@example.org': 1 });
    // What it left, as the consumer handles it: the notice again counts nothing, the other message counts.
    await feedback.bounce(reports[1]!);
    await feedback.bounce(reports[3]!);
    expect(softBounces.get(ADDRESS)).toBe(2);
  });

  it('suppresses the addresses whose soft bounces reach the limit in it', async () => {
    const { feedback, blocked, sent, delayed } = fakes();
    await feedback.bounce(delayed(sent()));
    await feedback.bounce(delayed(sent()));
    const third = sent();
    expect(await feedback.bounces([delayed(third), delayed(sent('fine@example.org'))])).toEqual([]);
    expect(blocked).toEqual([{ reason: 'soft_bounce_limit', messageId: third }]);
  });
});

describe('reports about a copy', () => {
  const complaint = (messageId: string, recipient?: string) => ({
    messageId,
    feedbackType: 'abuse',
    ...(recipient ? { recipient } : {}),
    at: new Date().toISOString(),
  });

  it("a complaint naming a cc or bcc suppresses that address alone and is kept as the copy's report; one naming the recipient, or no one, is the recipient's", async () => {
    const { feedback, blocked, blockedAddresses, recorded, copied } = fakes();
    const id = copied({ cc: ['cc@example.org'], bcc: ['bcc@example.org'] });
    await feedback.complaint(complaint(id, 'bcc@example.org'));
    expect(blockedAddresses).toEqual(['bcc@example.org']);
    expect(blocked).toEqual([{ reason: 'complaint', messageId: id }]);
    expect([...recorded]).toEqual([`${id}:bcc:bcc@example.org:complained`]);
    await feedback.complaint(complaint(id));
    expect(blockedAddresses).toEqual(['bcc@example.org', ADDRESS]);
    expect([...recorded]).toEqual([`${id}:bcc:bcc@example.org:complained`, `${id}:complained`]);
  });

  it("a hard bounce naming a copy suppresses it and is kept as the copy's report, without bouncing the message", async () => {
    const { feedback, blockedAddresses, recorded, copied, refused, softBounces } = fakes();
    const id = copied({ cc: ['cc@example.org'] });
    expect(await feedback.bounces([{ ...refused(id), recipient: 'cc@example.org' }])).toEqual([]);
    expect(blockedAddresses).toEqual(['cc@example.org']);
    expect([...recorded]).toEqual([`${id}:cc:cc@example.org:bounced`]);
    expect(softBounces.size).toBe(0);
  });

  it("a copy's soft bounces count toward that address's limit as a recipient's do: once per message, in a run or one by one", async () => {
    const { feedback, blocked, blockedAddresses, recorded, copied, sent, delayed, softBounces } = fakes();
    const aboutCopy = (id: string) => ({ ...delayed(id), recipient: 'slow-cc@example.org' });
    const first = copied({ bcc: ['slow-cc@example.org'] });
    await feedback.bounce(aboutCopy(first));
    await feedback.bounce(aboutCopy(first)); // its MTA's second delay notice
    // As a recipient, the address's soft bounces add to the same count.
    await feedback.bounce(delayed(sent('slow-cc@example.org')));
    expect(softBounces.get('slow-cc@example.org')).toBe(2);
    expect(softBounces.has(ADDRESS)).toBe(false);
    expect(blocked).toEqual([]);
    const third = copied({ cc: ['slow-cc@example.org'] });
    expect(await feedback.bounces([aboutCopy(third)])).toEqual([]);
    expect(blockedAddresses).toEqual(['slow-cc@example.org']);
    expect(blocked).toEqual([{ reason: 'soft_bounce_limit', messageId: third }]);
    expect(recorded).toContain(`${first}:bcc:slow-cc@example.org:soft_bounced`);
    expect(recorded).toContain(`${third}:cc:slow-cc@example.org:soft_bounced`);
  });
});

describe("reports to a copy's own return path", () => {
  it("are that copy's, whatever address they name; one about a copy since erased changes nothing", async () => {
    const { feedback, engagements, blocked, blockedAddresses, recorded, copied, refused } = fakes();
    const id = copied({ cc: ['cc@example.org', '(erased)'], bcc: ['bcc@example.org'] });
    // The bcc (position 3) names the recipient as the one who complained.
    await feedback.complaint({ messageId: id, feedbackType: 'abuse', recipient: ADDRESS, copy: 3, at: new Date().toISOString() });
    expect(blockedAddresses).toEqual(['bcc@example.org']);
    expect([...recorded]).toEqual([`${id}:bcc:bcc@example.org:complained`]);
    expect(await feedback.bounces([{ ...refused(id), copy: 1 }])).toEqual([]);
    expect(blockedAddresses).toEqual(['bcc@example.org', 'cc@example.org']);
    // Position 2 is an erased person's: nothing comes of a report or an unsubscribe naming it.
    await feedback.complaint({ messageId: id, feedbackType: 'abuse', copy: 2, at: new Date().toISOString() });
    await feedback.bounce({ ...refused(id), copy: 2 });
    await engagements.record({ messageId: id, projectId: P, at: new Date().toISOString(), copy: 2 }, 'unsubscribed', 'evt-2');
    expect(blocked).toHaveLength(2);
    // The cc's unsubscribe is the cc's: its address, and its report; the recipient stays.
    await engagements.record({ messageId: id, projectId: P, at: new Date().toISOString(), copy: 1 }, 'unsubscribed', 'evt-3');
    expect(blocked.at(-1)).toEqual({ reason: 'unsubscribed' });
    expect(blockedAddresses.at(-1)).toBe('cc@example.org');
    expect(recorded).toContain(`${id}:cc:cc@example.org:unsubscribed`);
    expect(recorded).not.toContain(`${id}:unsubscribed`);
  });
});

describe('reports about a test message', () => {
  it('are on its timeline and its copy reports, and suppress no one, count toward no limit and unsubscribe no one', async () => {
    const { feedback, engagements, blocked, recorded, copied, delayed, refused, softBounces } = fakes();
    const aboutCc = { recipient: 'cc@example.org' };
    const test = () => copied({ test: true, cc: ['cc@example.org'] });
    const complained = test();
    await feedback.complaint({ messageId: complained, feedbackType: 'abuse', at: new Date().toISOString() });
    await feedback.complaint({ messageId: complained, feedbackType: 'abuse', ...aboutCc, at: new Date().toISOString() });
    const bounced = test();
    expect(await feedback.bounces([refused(bounced), { ...refused(test()), ...aboutCc }])).toEqual([]);
    await feedback.bounce(refused(test()));
    await feedback.bounce({ ...refused(test()), ...aboutCc });
    for (let i = 0; i < 4; i++) {
      await feedback.bounce(delayed(test()));
      expect(await feedback.bounces([{ ...delayed(test()), ...aboutCc }])).toEqual([]);
    }
    const unsubscribed = test();
    await engagements.record({ messageId: unsubscribed, projectId: P, at: new Date().toISOString() }, 'unsubscribed', 'evt-1');

    expect(blocked).toEqual([]);
    expect(softBounces.size).toBe(0);
    expect(recorded).toContain(`${complained}:complained`);
    expect(recorded).toContain(`${complained}:cc:cc@example.org:complained`);
    expect(recorded).toContain(`${bounced}:bounced`);
    expect(recorded).toContain(`${unsubscribed}:unsubscribed`);
  });
});
