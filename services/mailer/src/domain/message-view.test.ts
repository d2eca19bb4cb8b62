import type { Message } from '@postbus/contracts';
import { acceptedMessage } from '../../test/accepted-message';
import type { EventDoc } from './message-records';
import { currentView, messageView, queuedEntry, summaryOf } from './message-view';

const accepted = new Date('2026-03-01T10:00:00.000Z');
const message = acceptedMessage({ id: 'msg_1', projectId: 'p1', email: 'ada@example.org', userId: 'u-1', acceptedAt: accepted });

const at = (seconds: number): Date => new Date(accepted.getTime() + seconds * 1000);
const entry = (sequence: number, event: EventDoc['event'], extra: Partial<EventDoc> = {}): EventDoc => ({
  _id: `msg_1:${sequence}`,
  messageId: 'msg_1',
  projectId: 'p1',
  event,
  sequence,
  at: at(sequence),
  ...extra,
});

describe('queuedEntry', () => {
  it('is the message itself: sequence 1 at its creation', () => {
    expect(queuedEntry(message)).toEqual({
      _id: 'msg_1:1',
      messageId: 'msg_1',
      projectId: 'p1',
      event: 'queued',
      sequence: 1,
      at: accepted,
    });
  });
});

describe('messageView', () => {
  it('shows a scheduled send as scheduled with its send_at until it goes, then as what it came to', () => {
    const sendAt = new Date('2026-03-02T09:00:00.000Z');
    const scheduled = { ...message, sendAt };
    expect(queuedEntry(scheduled).event).toBe('scheduled');
    expect(messageView(scheduled, [])).toMatchObject({
      status: 'scheduled',
      send_at: '2026-03-02T09:00:00.000Z',
      timeline: [{ sequence: 1, event: 'scheduled' }],
    });
    expect(messageView(scheduled, [entry(2, 'sent', { attempt: 1 })]).status).toBe('sent');
    expect(messageView(scheduled, [entry(2, 'canceled')]).timeline.map((e) => e.event)).toEqual(['scheduled', 'canceled']);
    expect(messageView(message, [])).not.toHaveProperty('send_at');
  });

  it('shows a message without events as queued, updated when created', () => {
    const view = messageView(message, []);
    expect(view).toMatchObject({
      id: 'msg_1',
      project_id: 'p1',
      email_key: 'welcome',
      email: 'ada@example.org',
      user_id: 'u-1',
      status: 'queued',
      subject: null,
      opened: false,
      clicked: false,
      opens: 0,
      clicks: 0,
      test: false,
      created_at: accepted.toISOString(),
      updated_at: accepted.toISOString(),
    });
    expect(view.timeline).toEqual([{ sequence: 1, event: 'queued', at: accepted.toISOString() }]);
  });

  it('says whether the message was sent with a test key; a summary kept before test mode is no test message', () => {
    expect(messageView({ ...message, test: true }, []).test).toBe(true);
    const { test: _unset, ...older } = messageView(message, []);
    expect(currentView(older as Message).test).toBe(false);
  });

  it('takes its status from the latest delivery event, not from engagement after it', () => {
    const events = [
      entry(2, 'deferred', { attempt: 1, smtp: { code: 421, response: '421 try later' } }),
      entry(3, 'sent', { attempt: 2, subject: 'Welcome' }),
      entry(4, 'opened', { key: 'opened', count: 1 }),
    ];
    expect(messageView(message, events).status).toBe('sent');
    expect(messageView(message, events.slice(0, 1)).status).toBe('deferred');
  });

  it('counts opens and clicks by their entries’ counts (an entry without a count is one)', () => {
    const view = messageView(message, [
      entry(2, 'sent', { attempt: 1 }),
      entry(3, 'opened', { key: 'opened', count: 3 }),
      entry(4, 'clicked', { key: 'clicked:a', url: 'https://a.example', count: 2 }),
      entry(5, 'clicked', { key: 'clicked:b', url: 'https://b.example' }),
    ]);
    expect(view).toMatchObject({ opened: true, clicked: true, opens: 3, clicks: 3 });
  });

  it('shows the latest subject and is updated at its last entry', () => {
    const view = messageView(message, [
      entry(2, 'deferred', { attempt: 1, subject: 'First render' }),
      entry(3, 'sent', { attempt: 2, subject: 'Second render' }),
      entry(4, 'opened', { key: 'opened', count: 1 }),
    ]);
    expect(view.subject).toBe('Second render');
    expect(view.updated_at).toBe(at(4).toISOString());
  });

  it("shows the language variant of the latest attempt that rendered: null before rendering and for the template's default", () => {
    expect(messageView(message, []).language).toBeNull();
    const german = [entry(2, 'deferred', { attempt: 1, subject: 'Hallo', language: 'de' }), entry(3, 'opened', { key: 'opened' })];
    expect(messageView(message, german).language).toBe('de');
    // A later attempt's render wins: the default names none.
    expect(messageView(message, [...german, entry(4, 'sent', { attempt: 2, subject: 'Hello' })]).language).toBeNull();
    // An attempt that failed before rendering (the catalog) changes nothing.
    expect(
      messageView(message, [...german, entry(4, 'failed', { attempt: 2, reason: 'catalog: the layout does not exist' })]).language,
    ).toBe('de');
    // A summary kept before languages were recorded reads as the default.
    const { language: _, ...before } = summaryOf(message, german).view;
    expect(currentView(before as Message).language).toBeNull();
  });

  it('names the template version the mail was rendered from, when a publish came between the accept and the render', () => {
    const sent = { ...message, templateId: 't1', templateVersion: 3 };
    expect(messageView(sent, []).template).toEqual({ id: 't1', version: 3 });
    expect(messageView(sent, [entry(2, 'sent', { attempt: 1, subject: 'Hi' })]).template).toEqual({ id: 't1', version: 3 });
    expect(messageView(sent, [entry(2, 'sent', { attempt: 1, subject: 'Hi', templateVersion: 2 })]).template).toEqual({
      id: 't1',
      version: 2,
    });
  });

  it('shapes the timeline: queued first, then each entry with only the details it has (no key, no subject)', () => {
    const view = messageView(message, [
      entry(2, 'deferred', { attempt: 1, smtp: { code: 451, response: '451 later' }, subject: 'Hi' }),
      entry(3, 'bounced', { attempt: 2, smtp: { code: 550, response: '550 no such user' }, reason: 'no such user' }),
      entry(4, 'clicked', { key: 'clicked:x', url: 'https://x.example', count: 2 }),
    ]);
    expect(view.timeline).toEqual([
      { sequence: 1, event: 'queued', at: accepted.toISOString() },
      { sequence: 2, event: 'deferred', at: at(2).toISOString(), smtp: { code: 451, response: '451 later' }, attempt: 1 },
      {
        sequence: 3,
        event: 'bounced',
        at: at(3).toISOString(),
        smtp: { code: 550, response: '550 no such user' },
        reason: 'no such user',
        attempt: 2,
      },
      { sequence: 4, event: 'clicked', at: at(4).toISOString(), url: 'https://x.example', count: 2 },
    ]);
  });
});

describe('messageView of a message with copies', () => {
  const copied = { ...message, cc: ['bo@example.org', 'cy@example.org'], bcc: ['archive@example.org'] };
  const dropped = [{ email: 'cy@example.org', kind: 'cc' as const, reason: 'hard_bounce' }];

  it('shows its cc and bcc, and the copies its latest delivery attempt dropped', () => {
    const view = messageView(copied, [
      entry(2, 'deferred', { attempt: 1, droppedCopies: [{ email: 'bo@example.org', kind: 'cc', reason: 'manual' }] }),
      entry(3, 'sent', { attempt: 2, droppedCopies: dropped }),
      entry(4, 'opened', { key: 'opened', count: 1 }),
    ]);
    expect(view).toMatchObject({ cc: ['bo@example.org', 'cy@example.org'], bcc: ['archive@example.org'], dropped_copies: dropped });
    expect(messageView(copied, [entry(2, 'sent', { attempt: 1 })]).dropped_copies).toBeUndefined();
  });

  it('says nothing of copies for a message without them', () => {
    const view = messageView(message, [entry(2, 'sent', { attempt: 1 })]);
    expect(Object.keys(view)).not.toEqual(expect.arrayContaining(['cc']));
    expect('bcc' in view || 'dropped_copies' in view).toBe(false);
  });
});

describe('summaryOf', () => {
  it('is the view under the message id and project, an entry given twice counted once, in sequence order', () => {
    const sent = entry(2, 'sent', { attempt: 1 });
    const opened = entry(3, 'opened', { key: 'opened', count: 2 });
    const summary = summaryOf(message, [opened, sent, { ...opened }]);
    expect(summary._id).toBe('msg_1');
    expect(summary.projectId).toBe('p1');
    expect(summary.view.opens).toBe(2);
    expect(summary.view.timeline.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(summary.view).toEqual(messageView(message, [sent, opened]));
  });
});
