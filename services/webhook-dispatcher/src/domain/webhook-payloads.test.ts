import { bodyOf, messageEvent, userErased, userUpdateRejected } from './webhook-payloads';

const sent = {
  messageId: 'm1',
  projectId: 'p1',
  emailKey: 'welcome',
  email: 'ann@example.com',
  userId: null,
  event: 'sent' as const,
  sequence: 2,
  at: '2026-01-01T00:00:00.000Z',
};

describe('webhook payloads', () => {
  it('keeps the project for routing but never sends it outside the body', () => {
    const event = messageEvent('message.sent', sent);
    expect(event.projectId).toBe('p1');
    const body = JSON.parse(bodyOf(event)) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(body).toMatchObject({
      type: 'message.sent',
      timestamp: sent.at,
      data: { message_id: 'm1', project_id: 'p1', email: 'ann@example.com' },
    });
  });

  it('a rejected update is timed by when it was published, and names the user as the command did', () => {
    const event = userUpdateRejected(
      { projectId: 'p1', user: { userId: 'u1' }, command: 'user.update', commandId: 'c1', reason: 'user_not_found' },
      '2026-01-02T00:00:00.000Z',
    );
    const body = JSON.parse(bodyOf(event)) as { timestamp: string; data: Record<string, unknown> };
    expect(body.timestamp).toBe('2026-01-02T00:00:00.000Z');
    expect(body.data).toEqual({ project_id: 'p1', user_id: 'u1', command: 'user.update', reason: 'user_not_found' });
  });

  it("the erasure's completion names no one", () => {
    const body = bodyOf(
      userErased({
        erasureId: 'era_1',
        projectId: 'p1',
        requestedAt: '2026-01-01T00:00:00.000Z',
        eraseAt: '2026-01-08T00:00:00.000Z',
        completedAt: '2026-01-08T00:01:00.000Z',
      }),
    );
    expect(body).not.toMatch(/email|user_id/);
    expect(JSON.parse(body)).toMatchObject({ type: 'user.erased', timestamp: '2026-01-08T00:01:00.000Z', data: { erasure_id: 'era_1' } });
  });
});
