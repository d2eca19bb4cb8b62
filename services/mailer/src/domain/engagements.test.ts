import type { Publisher } from '@postbus/bus';
import { Topics, type TrackingEvent } from '@postbus/contracts';
import type { MessageDoc } from './message-records';
import type { MessageRecords } from './ports/messages';
import type { SoftBounceCounts } from './ports/suppressions';
import { Engagements } from './engagements';
import type { SuppressionList } from './suppression-list';
import type { Timeline } from './timeline';

const P = 'p1';
const ADDRESS = 'Ada@Example.org';

/** One stored message; a timeline that records each event of a message once; every call logged in order. */
function fakes() {
  const log: string[] = [];
  const message = { _id: 'msg_1', projectId: P, email: ADDRESS } as MessageDoc;
  const recorded = new Set<string>();
  const published: Array<{ topic: string; type: string; key: string; data: unknown; id: string | undefined }> = [];
  const engagementDetails: unknown[] = [];
  const store = {
    message: (projectId: string, id: string) => Promise.resolve(projectId === P && id === message._id ? message : null),
  } as unknown as MessageRecords;
  const timeline = {
    recordEngagement: (m: MessageDoc, event: string, at: Date, details: unknown) => {
      log.push(`recordEngagement ${event} ${at.toISOString()}`);
      engagementDetails.push(details);
      const key = `${m._id}:${event}`;
      const first = !recorded.has(key);
      recorded.add(key);
      return Promise.resolve(first);
    },
  } as unknown as Timeline;
  const suppressionList = {
    unsubscribed: (projectId: string, email: string, at: Date) => {
      log.push(`unsubscribed ${projectId} ${email} ${at.toISOString()}`);
      return Promise.resolve();
    },
  } as unknown as SuppressionList;
  const suppressions = {
    clearSoftBounces: (projectId: string, email: string) => {
      log.push(`clearSoftBounces ${projectId} ${email}`);
      return Promise.resolve();
    },
  } as unknown as SoftBounceCounts;
  const publisher = {
    publish: (topic: string, type: string, key: string, data: unknown, options?: { id?: string }) => {
      log.push(`publish ${type}`);
      published.push({ topic, type, key, data, id: options?.id });
      return Promise.resolve();
    },
  } as unknown as Publisher;
  const engagements = new Engagements({ store, timeline, suppressionList, suppressions, publisher });
  return { engagements, log, published, engagementDetails };
}

const AT = '2026-04-01T12:00:00.000Z';
const tracked = (extra: Partial<TrackingEvent> = {}): TrackingEvent => ({ messageId: 'msg_1', projectId: P, at: AT, ...extra });

describe('an unsubscribe', () => {
  it('suppresses the address, publishes user.unsubscribe with an id derived from the event’s, then joins the timeline', async () => {
    const { engagements, log, published } = fakes();
    await engagements.record(tracked(), 'unsubscribed', 'trk-7');
    expect(log).toEqual([`unsubscribed ${P} ${ADDRESS} ${AT}`, 'publish user.unsubscribe', `recordEngagement unsubscribed ${AT}`]);
    expect(published).toEqual([
      {
        topic: Topics.UserCommands,
        type: 'user.unsubscribe',
        key: `${P}:ada@example.org`,
        data: { projectId: P, user: { email: ADDRESS }, reason: 'one-click unsubscribe', acceptedAt: AT },
        id: 'trk-7:unsubscribe',
      },
    ]);
  });

  it('a replay publishes the same command id; the reason can be given', async () => {
    const { engagements, published } = fakes();
    await engagements.record(tracked(), 'unsubscribed', 'trk-7', 'List-Unsubscribe mailto');
    await engagements.record(tracked(), 'unsubscribed', 'trk-7', 'List-Unsubscribe mailto');
    expect(published.map((p) => p.id)).toEqual(['trk-7:unsubscribe', 'trk-7:unsubscribe']);
    expect(published[0]!.data).toMatchObject({ reason: 'List-Unsubscribe mailto' });
  });

  it('does not clear soft bounces', async () => {
    const { engagements, log } = fakes();
    await engagements.record(tracked(), 'unsubscribed', 'trk-1');
    expect(log.filter((l) => l.startsWith('clearSoftBounces'))).toEqual([]);
  });
});

describe('an open or a click', () => {
  it('clears the address’s soft bounces the first time only', async () => {
    const { engagements, log } = fakes();
    await engagements.record(tracked(), 'opened', 'trk-1');
    await engagements.record(tracked(), 'opened', 'trk-2');
    expect(log).toEqual([`recordEngagement opened ${AT}`, `clearSoftBounces ${P} ${ADDRESS}`, `recordEngagement opened ${AT}`]);
  });

  it('a click carries its link to the timeline and clears soft bounces too; nothing is published', async () => {
    const { engagements, log, published, engagementDetails } = fakes();
    await engagements.record(tracked({ url: 'https://example.org/a' }), 'clicked', 'trk-3');
    expect(engagementDetails).toEqual([{ url: 'https://example.org/a' }]);
    expect(log).toContain(`clearSoftBounces ${P} ${ADDRESS}`);
    expect(published).toEqual([]);
  });

  it('an open has no details', async () => {
    const { engagements, engagementDetails } = fakes();
    await engagements.record(tracked(), 'opened', 'trk-4');
    expect(engagementDetails).toEqual([{}]);
  });
});

it('a token of a message not stored (erased, or another project’s) does nothing', async () => {
  const { engagements, log } = fakes();
  await engagements.record(tracked({ messageId: 'msg_gone' }), 'unsubscribed', 'trk-5');
  await engagements.record(tracked({ projectId: 'p2' }), 'opened', 'trk-6');
  expect(log).toEqual([]);
});
