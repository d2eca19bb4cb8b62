import { personList, personListsOf } from './delivery-keys';
import { concerns } from './erasure-participant';
import { bodyOf, messageEvent, userErased, userErasureScheduled } from './webhook-payloads';

const subject = { projectId: 'p1', email: 'a.b+c@example.org', userId: 'u(1)', before: '2026-01-02T00:00:00.000Z' };

/** A stored standard delivery of message.sent (its payload names the person). */
const sent = (over: { projectId?: string; email?: string; userId?: string | null }) => ({
  payload: bodyOf(
    messageEvent('message.sent', {
      messageId: 'msg_1',
      projectId: over.projectId ?? 'p1',
      emailKey: 'welcome',
      email: over.email ?? 'someone@example.org',
      userId: over.userId ?? null,
      event: 'sent',
      sequence: 2,
      at: '2026-01-01T00:00:00.000Z',
    }),
  ),
});

describe('finding the deliveries about a person', () => {
  it('lists a body under its project and exact address and user_id, by a hash that names neither', () => {
    const email = personList('p1', { kind: 'email', value: subject.email });
    const userId = personList('p1', { kind: 'user_id', value: subject.userId });
    expect(personListsOf(sent({ email: subject.email, userId: subject.userId }))).toEqual([email, userId]);
    expect(personListsOf(sent({ email: subject.email }))).toEqual([email]);
    expect(personListsOf(sent({ email: subject.email, projectId: 'p2' }))).not.toContain(email);
    expect(personListsOf(sent({ email: 'aXb+c@example.org' }))).not.toContain(email);
    expect(email).toMatch(/^person:[a-f0-9]{40}$/);
    expect(personList('p1', { kind: 'user_id', value: subject.email })).not.toBe(email);
    expect(personListsOf({ payload: 'not json' })).toEqual([]);
  });

  it('confirms by project and by the email or user_id field', () => {
    expect(concerns(sent({ email: subject.email }), subject)).toBe(true);
    expect(concerns(sent({ userId: subject.userId }), subject)).toBe(true);
    expect(concerns(sent({ email: subject.email, projectId: 'p2' }), subject)).toBe(false);
    expect(concerns(sent({ email: 'other@example.org' }), subject)).toBe(false);
    expect(concerns(sent({}), { ...subject, email: null, userId: null })).toBe(false);
    expect(concerns({ payload: 'not json' }, subject)).toBe(false);
    // An event after the erasure ran is about whoever has the address now.
    expect(concerns(sent({ email: subject.email }), { ...subject, before: '2025-12-31T23:59:59.000Z' })).toBe(false);
  });

  it('finds and confirms a delivery in another format by whom it is kept to be about, as its body names neither project nor user', () => {
    const person = { projectId: 'p1', email: subject.email, userId: subject.userId, at: '2026-01-01T00:00:00.000Z' };
    const resend = { payload: JSON.stringify({ type: 'email.delivered', data: { to: [subject.email] } }), person };
    expect(personListsOf(resend)).toEqual([
      personList('p1', { kind: 'email', value: subject.email }),
      personList('p1', { kind: 'user_id', value: subject.userId }),
    ]);
    expect(concerns(resend, { ...subject, email: null })).toBe(true);
    expect(concerns({ ...resend, person: { ...person, projectId: 'p2' } }, subject)).toBe(false);
    expect(concerns(resend, { ...subject, before: '2025-12-31T23:59:59.000Z' })).toBe(false);
    expect(concerns({ payload: resend.payload }, subject)).toBe(false);
  });

  it('covers the erasure_scheduled webhook, while user.erased names no one', () => {
    const times = { requestedAt: '2026-01-01T00:00:00.000Z', eraseAt: '2026-01-03T00:00:00.000Z' };
    const scheduled = userErasureScheduled({ erasureId: 'era_1', projectId: 'p1', id: null, email: subject.email, userId: null, ...times });
    expect(scheduled.timestamp).toBe(times.requestedAt);
    expect(concerns({ payload: bodyOf(scheduled) }, subject)).toBe(true);
    const erased = userErased({ erasureId: 'era_1', projectId: 'p1', completedAt: '2026-01-03T00:00:01.000Z', ...times });
    expect(erased).toEqual({
      type: 'user.erased',
      timestamp: '2026-01-03T00:00:01.000Z',
      projectId: 'p1',
      data: {
        erasure_id: 'era_1',
        project_id: 'p1',
        requested_at: times.requestedAt,
        erase_at: times.eraseAt,
        completed_at: '2026-01-03T00:00:01.000Z',
      },
    });
  });
});
