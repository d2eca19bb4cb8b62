import { createHash } from 'node:crypto';
import type { Publisher } from '@postbus/bus';
import { Topics, type EmailUnsuppressCommand } from '@postbus/contracts';
import type { BlockRequest, SuppressionDoc, SuppressionRecords } from './ports/suppressions';
import { SuppressionList } from './suppression-list';

const P = 'p1';
const ADDRESS = 'ada@example.org';
const created = new Date('2026-02-01T08:00:00.000Z');

interface Published {
  topic: string;
  type: string;
  key: string;
  data: Record<string, unknown>;
  id: string | undefined;
}

/**
 * Suppressions in memory (a bounce's or the client's block, and an unsubscribe, per address); every
 * call logged in order. `complaint`: a complaint's own record; `complaintDuringLift`: a complaint
 * that comes while the block is being lifted (its record stored, its addition to the block deleted
 * by the lift), which the store puts back.
 */
function fakes(
  state: {
    block?: SuppressionDoc | null;
    unsubscribe?: SuppressionDoc | null;
    complaint?: SuppressionDoc;
    complaintDuringLift?: SuppressionDoc;
  } = {},
) {
  const log: string[] = [];
  const published: Published[] = [];
  let block = state.block ?? null;
  let unsubscribe = state.unsubscribe ?? null;
  let complaint = state.complaint ?? null;
  const causesOf = (doc: SuppressionDoc) => doc.reasons ?? [{ reason: doc.reason, at: doc.at }];
  const putBack = (): SuppressionDoc | null => {
    if (!complaint || (block && causesOf(block).some((c) => c.reason === 'complaint'))) return null;
    block = { ...complaint, _id: `${P}:${ADDRESS}:block`, entry: 'entry-put-back' };
    log.push('put back');
    return block;
  };
  const suppressions = {
    blockAll: (requests: BlockRequest[]) => {
      log.push('blockAll');
      return Promise.resolve(
        requests.map((r, i): SuppressionDoc => ({
          _id: `${r.projectId}:${r.email}:block`,
          projectId: r.projectId,
          email: r.email,
          reason: r.reason,
          at: created,
          ...(r.messageId ? { messageId: r.messageId } : {}),
          entry: `entry-${i + 1}`,
        })),
      );
    },
    unsubscribed: (projectId: string, email: string, at: Date) => {
      log.push('unsubscribed');
      unsubscribe = { _id: `${projectId}:${email}:unsub`, projectId, email, reason: 'unsubscribed', at, entry: 'entry-u' };
      return Promise.resolve(unsubscribe);
    },
    blocking: () => {
      const found = block ?? complaint;
      const causes = [block, complaint].flatMap((doc) => (doc ? causesOf(doc) : []));
      return Promise.resolve(found ? { suppression: found, causes } : null);
    },
    unblock: (_projectId: string, _email: string, known: { suppression: SuppressionDoc }) => {
      log.push(`unblock ${known.suppression._id}`);
      block = null;
      if (state.complaintDuringLift) complaint = state.complaintDuringLift;
      return Promise.resolve({ lifted: true, kept: putBack() });
    },
    keptComplaint: () => Promise.resolve(putBack()),
    unsubscription: () => Promise.resolve(unsubscribe),
    resubscribed: () => {
      log.push('resubscribed');
      unsubscribe = null;
      return Promise.resolve();
    },
  } as unknown as SuppressionRecords;
  const publisher = {
    publish: (topic: string, type: string, key: string, data: Record<string, unknown>, options?: { id?: string }) => {
      log.push(`publish ${type}`);
      published.push({ topic, type, key, data, id: options?.id });
      return Promise.resolve();
    },
  } as unknown as Publisher;
  const list = new SuppressionList(suppressions, publisher);
  return { list, log, published, state: () => ({ block, unsubscribe }) };
}

const unsuppress = (resubscribe: boolean): EmailUnsuppressCommand => ({
  projectId: P,
  email: ADDRESS,
  resubscribe,
  acceptedAt: '2026-02-02T09:00:00.000Z',
});

const hardBounce: SuppressionDoc = {
  _id: `${P}:${ADDRESS}:block`,
  projectId: P,
  email: ADDRESS,
  reason: 'hard_bounce',
  at: created,
  messageId: 'msg_9',
  entry: 'entry-b',
};
const unsubscribed: SuppressionDoc = {
  _id: `${P}:${ADDRESS}:unsub`,
  projectId: P,
  email: ADDRESS,
  reason: 'unsubscribed',
  at: created,
  entry: 'entry-u',
};

describe('block', () => {
  it('announces each suppression created, its id derived from its list entry', async () => {
    const { list, published } = fakes();
    await list.block([
      { projectId: P, email: ADDRESS, reason: 'hard_bounce', messageId: 'msg_1' } as BlockRequest,
      { projectId: P, email: 'bob@example.org', reason: 'manual' } as BlockRequest,
    ]);
    expect(published).toEqual([
      {
        topic: Topics.EmailEvents,
        type: 'suppression.created',
        key: `${P}:${ADDRESS}`,
        data: { projectId: P, email: ADDRESS, reason: 'hard_bounce', createdAt: created.toISOString(), messageId: 'msg_1' },
        id: `suppression:${P}:entry-1:created`,
      },
      {
        topic: Topics.EmailEvents,
        type: 'suppression.created',
        key: `${P}:bob@example.org`,
        data: { projectId: P, email: 'bob@example.org', reason: 'manual', createdAt: created.toISOString(), messageId: null },
        id: `suppression:${P}:entry-2:created`,
      },
    ]);
  });

  it('a redelivered block announces the same change again (same id)', async () => {
    const { list, published } = fakes();
    const request = { projectId: P, email: ADDRESS, reason: 'complaint' } as BlockRequest;
    await list.block([request]);
    await list.block([request]);
    expect(published.map((p) => p.id)).toEqual([`suppression:${P}:entry-1:created`, `suppression:${P}:entry-1:created`]);
  });
});

describe('unsubscribed', () => {
  it('suppresses the address and announces it at the unsubscribe’s time', async () => {
    const { list, log, published } = fakes();
    const at = new Date('2026-02-03T00:00:00.000Z');
    await list.unsubscribed(P, ADDRESS, at);
    expect(log).toEqual(['unsubscribed', 'publish suppression.created']);
    expect(published[0]).toMatchObject({
      type: 'suppression.created',
      data: { reason: 'unsubscribed', createdAt: at.toISOString(), messageId: null },
      id: `suppression:${P}:entry-u:created`,
    });
  });
});

describe('lift', () => {
  it('without resubscribe: announces the block deleted, then unblocks; the unsubscribe stays', async () => {
    const { list, log, published, state } = fakes({ block: hardBounce, unsubscribe: unsubscribed });
    await list.lift(unsuppress(false), 'cmd-1');
    expect(log).toEqual(['publish suppression.deleted', `unblock ${hardBounce._id}`]);
    expect(published).toEqual([
      {
        topic: Topics.EmailEvents,
        type: 'suppression.deleted',
        key: `${P}:${ADDRESS}`,
        data: {
          projectId: P,
          email: ADDRESS,
          reason: 'hard_bounce',
          createdAt: created.toISOString(),
          messageId: 'msg_9',
          deletedAt: '2026-02-02T09:00:00.000Z',
        },
        id: `suppression:${P}:entry-b:deleted`,
      },
    ]);
    expect(state().unsubscribe).toEqual(unsubscribed);
  });

  it('with resubscribe: also announces the unsubscribe deleted and asks the users service, before it is lifted', async () => {
    const { list, log, published, state } = fakes({ block: hardBounce, unsubscribe: unsubscribed });
    await list.lift(unsuppress(true), 'cmd-2');
    expect(log).toEqual([
      'publish suppression.deleted',
      `unblock ${hardBounce._id}`,
      'publish suppression.deleted',
      'publish user.resubscribe',
      'resubscribed',
    ]);
    expect(published[1]).toMatchObject({ type: 'suppression.deleted', id: `suppression:${P}:entry-u:deleted` });
    expect(published[2]).toEqual({
      topic: Topics.UserCommands,
      type: 'user.resubscribe',
      key: `${P}:${ADDRESS}`,
      data: { projectId: P, user: { email: ADDRESS }, acceptedAt: '2026-02-02T09:00:00.000Z' },
      id: 'cmd-2:resubscribe',
    });
    expect(state()).toEqual({ block: null, unsubscribe: null });
  });

  it('with resubscribe and only an unsubscribe: lifts that alone', async () => {
    const { list, log } = fakes({ unsubscribe: unsubscribed });
    await list.lift(unsuppress(true), 'cmd-3');
    expect(log).toEqual(['publish suppression.deleted', 'publish user.resubscribe', 'resubscribed']);
  });

  it('with nothing to lift: announces nothing', async () => {
    const { list, log } = fakes();
    await list.lift(unsuppress(true), 'cmd-4');
    expect(log).toEqual([]);
  });

  it('a complaint the address has now (come after the DELETE was checked) makes it change nothing: no block lifted, no resubscribe', async () => {
    const manualThenComplaint: SuppressionDoc = {
      ...hardBounce,
      reason: 'manual',
      reasons: [
        { reason: 'manual', at: created },
        { reason: 'complaint', at: new Date('2026-02-02T08:59:00.000Z'), messageId: 'msg_10' },
      ],
    };
    const complaint: SuppressionDoc = { ...hardBounce, _id: `${P}:${ADDRESS}:complaint`, reason: 'complaint', messageId: 'msg_10' };
    const { list, log, published, state } = fakes({ block: manualThenComplaint, unsubscribe: unsubscribed, complaint });
    await list.lift(unsuppress(true), 'cmd-6');
    expect(log).toEqual([]);
    expect(published).toEqual([]);
    expect(state()).toEqual({ block: manualThenComplaint, unsubscribe: unsubscribed });
  });

  it("a complaint whose record is stored but not yet in the address's block is completed, not lifted", async () => {
    const complaint: SuppressionDoc = { ...hardBounce, _id: `${P}:${ADDRESS}:complaint`, reason: 'complaint', messageId: 'msg_10' };
    const { list, log, published, state } = fakes({ block: { ...hardBounce, reason: 'manual' }, complaint });
    await list.lift(unsuppress(false), 'cmd-7');
    expect(log).toEqual(['put back', 'publish suppression.created']);
    expect(published[0]).toMatchObject({ type: 'suppression.created', data: { reason: 'complaint' } });
    expect(state().block).toMatchObject({ reason: 'complaint' });
  });

  it('a complaint that comes while the block is lifted is put back and announced as a new suppression; the unsubscribe stays', async () => {
    const complaint: SuppressionDoc = { ...hardBounce, _id: `${P}:${ADDRESS}:complaint`, reason: 'complaint', messageId: 'msg_11' };
    const { list, log, published, state } = fakes({ block: hardBounce, unsubscribe: unsubscribed, complaintDuringLift: complaint });
    await list.lift(unsuppress(true), 'cmd-8');
    expect(log).toEqual(['publish suppression.deleted', `unblock ${hardBounce._id}`, 'put back', 'publish suppression.created']);
    expect(published[1]).toMatchObject({
      type: 'suppression.created',
      data: { reason: 'complaint', messageId: 'msg_11' },
      id: `suppression:${P}:entry-put-back:created`,
    });
    expect(state()).toEqual({ block: expect.objectContaining({ reason: 'complaint' }), unsubscribe: unsubscribed });
  });

  it('names a suppression without a list entry (outlived an erasure) by a hash of its key, never by its address', async () => {
    const { entry: _, ...kept } = hardBounce;
    const { list, published } = fakes({ block: kept });
    await list.lift(unsuppress(false), 'cmd-5');
    const name = createHash('sha256').update(kept._id).digest('base64url').slice(0, 22);
    expect(published[0]!.id).toBe(`suppression:${P}:${name}:deleted`);
    expect(published[0]!.id).not.toContain(ADDRESS);
  });
});
