import { Message, type EmailTriggerCommand } from '@postbus/contracts';
import { compileBody, toFieldErrors } from '@postbus/http';
import { acceptedMessageView, acceptedRecordOf, recordAccepted, type AcceptedMessage } from './accepted-messages';

const command = (extra: Partial<EmailTriggerCommand> = {}): EmailTriggerCommand => ({
  messageId: 'msg_1',
  projectId: 'p1',
  emailId: 'e1',
  emailKey: 'welcome',
  templateId: 't1',
  templateVersion: 3,
  user: { email: 'ann@example.com', name: 'Ann' },
  data: { code: '42' },
  acceptedAt: '2026-12-03T10:00:00.000Z',
  ...extra,
});

describe('an accepted message', () => {
  it('keeps what identifies it and the options the send gave, not its data', () => {
    expect(acceptedRecordOf(command())).toEqual({
      id: 'msg_1',
      projectId: 'p1',
      emailKey: 'welcome',
      email: 'ann@example.com',
      acceptedAt: new Date('2026-12-03T10:00:00.000Z'),
    });
    const full = acceptedRecordOf(
      command({
        user: { email: 'ann@example.com', user_id: 'u-7' },
        test: true,
        sendAt: '2026-12-04T10:00:00.000Z',
        tags: ['receipt'],
        metadata: { order: '17' },
        cc: ['bob@example.com'],
        attachments: [{ filename: 'a.pdf', contentType: 'application/pdf', size: 10, sha256: 'ab' }],
      }),
    );
    expect(full).toMatchObject({ userId: 'u-7', test: true, sendAt: '2026-12-04T10:00:00.000Z', cc: ['bob@example.com'] });
    expect(full.attachments).toEqual([{ filename: 'a.pdf', contentType: 'application/pdf', size: 10 }]);
  });

  it('reads as a Message with status accepted, its acceptance time and an empty timeline', () => {
    const view = acceptedMessageView(acceptedRecordOf(command({ tags: ['receipt'], bcc: ['eve@example.com'] })));
    const check = compileBody(Message);
    expect(check(view) ? [] : toFieldErrors(check.errors)).toEqual([]);
    expect(view).toMatchObject({
      id: 'msg_1',
      status: 'accepted',
      email: 'ann@example.com',
      email_key: 'welcome',
      user_id: null,
      accepted_at: '2026-12-03T10:00:00.000Z',
      tags: ['receipt'],
      bcc: ['eve@example.com'],
      test: false,
      timeline: [],
    });
    expect(view).not.toHaveProperty('cc');
  });
});

describe('recording accepted messages', () => {
  const record = (id: string): AcceptedMessage => ({
    id,
    projectId: 'p1',
    emailKey: 'welcome',
    email: 'a@example.com',
    acceptedAt: new Date(),
  });
  const options = (errors: unknown[] = []) => ({ waitMs: 50, maxPending: 3, onError: (error: unknown) => errors.push(error) });

  it('a send waits until its record is stored', async () => {
    let stored = false;
    const recordOf = recordAccepted(
      { record: () => new Promise<void>((resolve) => setTimeout(() => resolve(void (stored = true)), 10)) },
      options(),
    );
    await recordOf([record('m1')]);
    expect(stored).toBe(true);
  });

  it('a store that fails never fails the send; it is reported, and the next sends do not wait until a record is stored again', async () => {
    const errors: unknown[] = [];
    let answer: 'fail' | 'hang' | 'ok' = 'fail';
    const recordOf = recordAccepted(
      {
        record: () =>
          answer === 'fail'
            ? Promise.reject(new Error('down'))
            : answer === 'hang'
              ? new Promise<void>(() => undefined)
              : Promise.resolve(),
      },
      options(errors),
    );
    await expect(recordOf([record('m1')])).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    answer = 'hang';
    const started = performance.now();
    await recordOf([record('m2')]);
    expect(performance.now() - started).toBeLessThan(40); // failing: not waited for
    answer = 'ok';
    await recordOf([record('m3')]); // stored: the store answers again
    answer = 'hang';
    const waited = performance.now();
    await recordOf([record('m4')]);
    expect(performance.now() - waited).toBeGreaterThanOrEqual(45); // waited its waitMs, then gave up
  });

  it('past maxPending records waiting, new ones are skipped and reported, not queued', async () => {
    const errors: unknown[] = [];
    const written: string[] = [];
    const recordOf = recordAccepted(
      {
        record: (messages) => {
          written.push(...messages.map((m) => m.id));
          return new Promise<void>(() => undefined);
        },
      },
      options(errors),
    );
    await recordOf([record('m1'), record('m2'), record('m3')]);
    await recordOf([record('m4')]);
    expect(written).toEqual(['m1', 'm2', 'm3']);
    expect(errors).toHaveLength(1);
  });
});
