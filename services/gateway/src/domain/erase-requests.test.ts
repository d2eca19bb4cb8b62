import type { UserRef } from '@postbus/contracts';
import { EraseRequests, type EraseRequestsDeps } from './erase-requests';

function setup(open: { erasure: { id: string; erase_at: string } | null }, emails: Record<string, string> = {}) {
  const sent: { topic: string; type: string; key: string; data: Record<string, unknown>; requestId: string }[] = [];
  const deps: EraseRequestsDeps = {
    commands: {
      send: (topic: string, type: string, key: string, data: Record<string, unknown>, requestId: string) => {
        sent.push({ topic, type, key, data, requestId });
        return Promise.resolve('id');
      },
    },
    erasures: { open: () => Promise.resolve({ ...open, erase_at_if_new: '2026-01-31T00:00:00.000Z' }) },
    emailOfUser: (_projectId, userId) => Promise.resolve(emails[userId] ?? null),
    newErasureId: () => 'era_new',
    now: () => new Date('2026-01-01T00:00:00.000Z'),
  };
  return { requests: new EraseRequests(deps), sent };
}

describe('EraseRequests', () => {
  it('a repeat for a person with an erasure queued answers with it and sends nothing', async () => {
    const { requests, sent } = setup({ erasure: { id: 'era_old', erase_at: '2026-01-20T00:00:00.000Z' } });
    expect(await requests.erase('p1', { email: 'ann@example.com' }, 'req_1')).toEqual({
      erasureId: 'era_old',
      eraseAt: '2026-01-20T00:00:00.000Z',
    });
    expect(sent).toEqual([]);
  });

  it("queues a new erasure, and orders it before the person's later triggers by their address", async () => {
    const { requests, sent } = setup({ erasure: null });
    const user: UserRef = { email: 'ann@example.com' };
    expect(await requests.erase('p1', user, 'req_1')).toEqual({ erasureId: 'era_new', eraseAt: '2026-01-31T00:00:00.000Z' });
    expect(sent.map((s) => [s.type, s.key])).toEqual([
      ['erasure.request', 'p1:ann@example.com'],
      ['email.erasure_requested', 'p1:ann@example.com'],
    ]);
    expect(sent[0]!.data).toEqual({
      erasureId: 'era_new',
      projectId: 'p1',
      user,
      acceptedAt: '2026-01-01T00:00:00.000Z',
      eraseAt: '2026-01-31T00:00:00.000Z',
    });
    expect(sent.every((s) => s.requestId === 'req_1')).toBe(true);
  });

  it("an erase by user_id goes under the user_id's key and under the address the user is known by", async () => {
    const { requests, sent } = setup({ erasure: null }, { 'u-ann': 'ann@example.com' });
    await requests.erase('p1', { userId: 'u-ann' }, 'req_1');
    const marks = sent.filter((s) => s.type === 'email.erasure_requested');
    expect(marks.map((s) => s.key).sort()).toEqual(['p1:ann@example.com', 'p1:uid:u-ann']);
    expect(marks[0]!.data).toMatchObject({ email: 'ann@example.com', userId: 'u-ann' });
  });

  it('an erase by an unknown user_id goes under its own key alone', async () => {
    const { requests, sent } = setup({ erasure: null });
    await requests.erase('p1', { userId: 'u-x' }, 'req_1');
    expect(sent.filter((s) => s.type === 'email.erasure_requested').map((s) => s.key)).toEqual(['p1:uid:u-x']);
  });
});
