import type { ErasureExecuteCommand } from '@postbus/contracts';
import { MailerErasure, type ErasureDeps } from './erasure-participant';

const subject: ErasureExecuteCommand = {
  erasureId: 'era_1',
  projectId: 'p1',
  id: null,
  email: 'ada@example.org',
  userId: 'u-1',
  before: '2100-01-01T00:00:00.000Z',
};

function fakes(messages: Array<{ _id: string; email: string; attachments?: Array<{ size: number }>; test?: true; sendAt?: Date }>) {
  const docs = new Map(messages.map((m) => [m._id, { ...m, projectId: 'p1', acceptedAt: new Date('2026-01-01T00:00:00Z') }]));
  const calls: string[] = [];
  const done = new Set<string>();
  /** A recording stub resolving to what `result` returns. */
  const step = <A extends unknown[], R>(name: string | undefined, result: (...args: A) => R) =>
    jest.fn((...args: A) => {
      if (name) calls.push(name);
      return Promise.resolve(result(...args));
    });
  const deps = {
    store: {
      messagesById: step(undefined, (ids: string[]) => new Map(ids.flatMap((id) => (docs.has(id) ? [[id, docs.get(id)!]] : [])))),
      delete: step('delete', (ids: string[]) => {
        ids.forEach((id) => docs.delete(id));
        return { messages: ids.length, events: ids.length * 2 };
      }),
    },
    // The recipient's list holds the first message, the user id's list all; the test log's lists its test messages.
    lists: {
      trim: jest.fn(async (list: string, _cutoff: Date, onChunk: (ids: string[]) => Promise<void>) => {
        const listed = messages.filter((m) => (m.test === true) === list.includes('~test'));
        if (listed.length) await onChunk(list.includes(':r:') ? listed.slice(0, 1).map((m) => m._id) : listed.map((m) => m._id));
        return 0;
      }),
      forget: step('forget', () => undefined),
    },
    retries: { cancel: step('cancel', () => undefined) },
    schedule: { forget: step('schedule', (_ids: string[]) => undefined) },
    suppressions: {
      removeAll: step('suppressions', () => 3),
      addErasure: step('addErasure', () => undefined),
      removeErasure: step('removeErasure', () => undefined),
    },
    attachments: { deleteSets: step('attachments', (_projectId: string, ids: string[]) => ids.length * 2) },
    done: {
      record: step('record', (id: string) => void done.add(id)),
      has: step(undefined, (id: string) => done.has(id)),
    },
  };
  return { deps, calls, erasure: new MailerErasure(deps as unknown as ErasureDeps) };
}

describe('MailerErasure', () => {
  it('records the erasure, cancels retries before deleting, and removes the suppressions of every address of the person', async () => {
    const { deps, calls, erasure } = fakes([
      { _id: 'msg_1', email: 'ada@example.org' },
      { _id: 'msg_2', email: 'ada.old@example.org', attachments: [{ size: 10 }] },
    ]);
    expect(await erasure.erase(subject)).toEqual({ messages: 2, events: 4, attachmentChunks: 2, copiesRedacted: 0, suppressions: 3 });
    // The attachments of a message that has some go before it (a message without any costs no probe).
    expect(calls).toEqual([
      'record',
      'cancel',
      'schedule',
      'attachments',
      'delete',
      'forget',
      'cancel',
      'schedule',
      'attachments',
      'delete',
      'forget',
      'suppressions',
    ]);
    expect(deps.attachments.deleteSets.mock.calls).toEqual([
      [subject.projectId, []],
      [subject.projectId, ['msg_2']],
    ]);
    const cutoff = new Date(Date.parse(subject.before) + 1);
    expect(deps.lists.trim.mock.calls.map(([list, at]) => [list.split(':')[2], list.includes('~test'), at])).toEqual([
      ['r', false, cutoff],
      ['u', false, cutoff],
      ['r', true, cutoff],
      ['u', true, cutoff],
      // Then each address of the person as a copy on others' messages, in the project's lists and its test log's.
      ['c', false, cutoff],
      ['c', false, cutoff],
      ['c', true, cutoff],
      ['c', true, cutoff],
    ]);
    expect(deps.retries.cancel.mock.calls).toEqual([[['msg_1']], [['msg_2']]]);
    expect(deps.suppressions.removeAll).toHaveBeenCalledWith(
      'p1',
      ['ada@example.org', 'ada.old@example.org'],
      'u-1',
      new Date(subject.before),
    );
  });

  it('drops the schedule (decision and any wait) of the person’s scheduled messages, before the messages', async () => {
    const { deps, calls, erasure } = fakes([
      { _id: 'msg_later', email: 'ada@example.org', sendAt: new Date('2026-02-01T09:00:00Z') },
      { _id: 'msg_now', email: 'ada@example.org' },
    ]);
    await erasure.erase(subject);
    expect(deps.schedule.forget.mock.calls.flatMap(([ids]) => ids)).toEqual(['msg_later']);
    expect(calls.indexOf('schedule')).toBeLessThan(calls.indexOf('delete'));
  });

  it('deletes the person’s test messages too', async () => {
    const { deps, erasure } = fakes([
      { _id: 'msg_1', email: 'ada@example.org' },
      { _id: 'msg_t', email: 'ada@example.org', test: true },
    ]);
    expect(await erasure.erase(subject)).toMatchObject({ messages: 2 });
    expect(deps.store.delete.mock.calls.flatMap(([ids]) => ids).sort()).toEqual(['msg_1', 'msg_t']);
  });

  it('takes back the suppression of a schedule that arrives after its erasure', async () => {
    const { calls, erasure } = fakes([]);
    const scheduled = { ...subject, requestedAt: '2026-01-01T00:00:00.000Z', eraseAt: '2026-01-03T00:00:00.000Z' };
    await erasure.suppress(scheduled);
    expect(calls).toEqual(['addErasure']);
    await erasure.erase(subject);
    calls.length = 0;
    await erasure.suppress(scheduled);
    expect(calls).toEqual(['addErasure', 'removeErasure']);
  });
});
