import type { EmailTriggerCommand } from '@postbus/contracts';
import { NotFoundError, ServiceUnavailableError } from '@postbus/errors';
import { acceptedTimeOf, messageIds, newIdempotencyNonce, sendBatch, type BatchSendDeps } from './batch-send';

const P = 'p1';

function deps(overrides: Partial<BatchSendDeps> = {}) {
  const queued: Array<Array<{ key: string; command: EmailTriggerCommand }>> = [];
  const resolved: string[] = [];
  const stored: Array<{ messageId: string; files: string[] }> = [];
  let n = 0;
  const base: BatchSendDeps = {
    check: (item) => ((item as { user?: { email?: string } }).user?.email ? [] : [{ pointer: '/user/email', message: 'is required' }]),
    checkContent: (item) => ((item as { subject?: string }).subject ? [] : [{ pointer: '/subject', message: 'is required' }]),
    resolveContent: () => {
      resolved.push('(content)');
      return Promise.resolve({ senderDomain: 'mail.example.com', trackOpens: false, trackClicks: true });
    },
    source: 'api',
    isAddress: (address) => /^[^@\s]+@[^@\s]+$/.test(address),
    resolve: (emailKey) => {
      resolved.push(emailKey);
      if (emailKey === 'missing') return Promise.reject(new NotFoundError('No such transactional email in this project.'));
      return Promise.resolve({ emailId: `e-${emailKey}`, emailKey, templateId: 't1', templateVersion: 2, templateRevision: 1 });
    },
    queue: (triggers) => {
      queued.push(triggers);
      return Promise.resolve();
    },
    storeAttachments: (messageId, files) => {
      stored.push({ messageId, files: files.map((f) => f.toString()) });
      return Promise.resolve();
    },
    newMessageId: () => `msg_${++n}`,
    now: () => new Date('2026-11-27T12:00:00.000Z'),
  };
  return { deps: { ...base, ...overrides }, queued, resolved, stored };
}

describe('a batch send', () => {
  it('answers every item in order, rejects only the bad ones with pointers into the body, and queues the good ones together', async () => {
    const { deps: d, queued, resolved } = deps();
    const results = await sendBatch(
      P,
      [
        { email_key: 'welcome', user: { email: 'Ada@Example.org' }, tags: ['a'] },
        { email_key: 'welcome', user: {} },
        { email_key: 'missing', user: { email: 'b@example.org' } },
        { email_key: 'receipt', user: { email: 'c@example.org' }, headers: { From: 'x@y.z' } },
        { email_key: 'welcome', user: { email: 'd@example.org' }, data: { code: 1 } },
      ],
      d,
    );
    expect(results.map((r) => r.status)).toEqual(['accepted', 'rejected', 'rejected', 'rejected', 'accepted']);
    expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    const bad = results[1]!;
    expect(bad.status === 'rejected' && bad.error).toMatchObject({ status: 400, errors: [{ pointer: '/messages/1/user/email' }] });
    expect(results[2]!.status === 'rejected' && results[2]!.error).toMatchObject({ status: 404 });
    expect(results[3]!.status === 'rejected' && results[3]!.error).toMatchObject({
      status: 422,
      type: '/problems/reserved-header',
      errors: [{ pointer: '/messages/3/headers/From' }],
    });
    expect(queued).toHaveLength(1);
    expect(queued[0]!.map((t) => t.command)).toEqual([
      expect.objectContaining({ messageId: 'msg_1', emailId: 'e-welcome', user: { email: 'ada@example.org' }, data: {}, tags: ['a'] }),
      expect.objectContaining({ messageId: 'msg_2', user: { email: 'd@example.org' }, data: { code: 1 } }),
    ]);
    expect(results[0]).toEqual({ index: 0, status: 'accepted', message_id: 'msg_1' });
    // Each email is resolved once, however many items name it.
    expect(resolved.sort()).toEqual(['missing', 'welcome']); // once each; receipt's item was refused before
  });

  it("stores an item's attachments under its message id before queueing, and rejects only the item with a program attached", async () => {
    const { deps: d, queued, stored } = deps();
    const file = (filename: string, text: string) => ({ filename, content: Buffer.from(text).toString('base64') });
    const results = await sendBatch(
      P,
      [
        { email_key: 'welcome', user: { email: 'a@example.org' }, attachments: [file('a.txt', 'hello'), file('b.csv', 'x,y')] },
        { email_key: 'welcome', user: { email: 'b@example.org' }, attachments: [file('setup.exe', 'MZ')] },
      ],
      d,
    );
    expect(results.map((r) => r.status)).toEqual(['accepted', 'rejected']);
    expect(results[1]!.status === 'rejected' && results[1]!.error).toMatchObject({
      status: 422,
      errors: [{ pointer: '/messages/1/attachments/0/filename', message: expect.stringContaining('setup.exe') }],
    });
    expect(stored).toEqual([{ messageId: 'msg_1', files: ['hello', 'x,y'] }]);
    expect(queued[0]![0]!.command.attachments).toEqual([
      expect.objectContaining({ filename: 'a.txt', contentType: 'text/plain', size: 5 }),
      expect.objectContaining({ filename: 'b.csv', contentType: 'text/csv', size: 3 }),
    ]);
  });

  it('schedules an item with a send_at, answering it, and rejects one in the past or 31 days ahead naming the field', async () => {
    const { deps: d, queued } = deps();
    const results = await sendBatch(
      P,
      [
        { email_key: 'welcome', user: { email: 'a@example.org' }, send_at: '2026-11-27T13:00:00+01:00' },
        { email_key: 'welcome', user: { email: 'b@example.org' }, send_at: '2026-11-27T11:00:00Z' },
        { email_key: 'welcome', user: { email: 'c@example.org' }, send_at: '2026-12-28T12:00:00Z' },
      ],
      d,
    );
    expect(results[0]).toEqual({ index: 0, status: 'accepted', message_id: 'msg_1', send_at: '2026-11-27T12:00:00.000Z' });
    expect(results[1]!.status === 'rejected' && results[1]!.error).toMatchObject({
      status: 422,
      errors: [{ pointer: '/messages/1/send_at', message: 'is in the past' }],
    });
    expect(results[2]!.status === 'rejected' && results[2]!.error).toMatchObject({
      status: 422,
      errors: [{ pointer: '/messages/2/send_at', message: 'is more than 30 days ahead' }],
    });
    expect(queued[0]!.map((t) => t.command.sendAt)).toEqual(['2026-11-27T12:00:00.000Z']);
  });

  it('makes every trigger of a test key’s batch a test message, and no other batch’s', async () => {
    const items = [{ email_key: 'welcome', user: { email: 'b+bounce@example.org' } }];
    const test = deps({ test: true });
    await sendBatch(P, items, test.deps);
    expect(test.queued[0]!.map((t) => t.command.test)).toEqual([true]);
    const real = deps();
    await sendBatch(P, items, real.deps);
    expect(real.queued[0]!.map((t) => 'test' in t.command)).toEqual([false]);
  });

  it('rejects an item with too many copies, naming its field in the body, and sends the others with theirs', async () => {
    const { deps: d, queued } = deps();
    const many = Array.from({ length: 50 }, (_, i) => `c${i}@example.org`);
    const results = await sendBatch(
      P,
      [
        { email_key: 'welcome', user: { email: 'a@example.org' }, cc: many },
        { email_key: 'welcome', user: { email: 'b@example.org' }, cc: ['Cc@Example.org'], bcc: ['bcc@example.org'] },
      ],
      d,
    );
    expect(results[0]!.status === 'rejected' && results[0]!.error).toMatchObject({
      status: 422,
      type: '/problems/too-many-copies',
      errors: [{ pointer: '/messages/0/cc' }],
    });
    expect(queued[0]!.map((t) => t.command)).toEqual([
      expect.objectContaining({ messageId: 'msg_1', cc: ['cc@example.org'], bcc: ['bcc@example.org'] }),
    ]);
  });

  it('takes content items (no email_key) beside template items, planning the project once for them', async () => {
    const { deps: d, queued, resolved } = deps();
    const results = await sendBatch(
      P,
      [
        { to: ['Ann@Example.org', 'bea@example.org'], subject: 'Hi', html: '<p>Hi</p>', from: 'Shop <shop@mail.example.com>' },
        { email_key: 'welcome', user: { email: 'cy@example.org' } },
        { to: 'dee@example.org', subject: 'Bye', text: 'Bye', user: { email: 'dee@example.org', name: 'Dee' } },
        { to: 'eve@example.org', html: '<p>no subject</p>' },
        { to: 'fay@example.org', subject: 'Elsewhere', text: 'x', from: 'fay@other.example' },
      ],
      d,
    );
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted', 'rejected', 'rejected']);
    expect(results[3]!.status === 'rejected' && results[3]!.error.errors).toEqual([
      { pointer: '/messages/3/subject', message: 'is required' },
    ]);
    expect(results[4]!.status === 'rejected' && results[4]!.error).toMatchObject({
      type: '/problems/from-email-not-on-sender-domain',
      errors: [{ pointer: '/messages/4/from' }],
    });
    expect(resolved.filter((r) => r === '(content)')).toHaveLength(1);
    const [first, , third] = queued[0]!.map((t) => t.command);
    expect(first).toMatchObject({
      user: { email: 'ann@example.org' },
      unregistered: true,
      to: ['bea@example.org'],
      content: {
        subject: 'Hi',
        html: '<p>Hi</p>',
        fromEmail: 'shop@mail.example.com',
        fromName: 'Shop',
        trackOpens: false,
        trackClicks: true,
      },
    });
    expect(first).not.toHaveProperty('emailKey');
    expect(third).toMatchObject({ user: { email: 'dee@example.org', name: 'Dee' }, content: { subject: 'Bye', text: 'Bye' } });
    expect(third).not.toHaveProperty('unregistered');
  });

  it('queues nothing when every item is bad', async () => {
    const { deps: d, queued } = deps();
    const results = await sendBatch(P, [{ email_key: 'welcome', user: {} }], d);
    expect(results[0]!.status).toBe('rejected');
    expect(queued).toEqual([]);
  });

  it('all or nothing: one rejected item rejects the good ones too, saying why, and queues nothing', async () => {
    const { deps: d, queued } = deps({ allOrNothing: true });
    const items = [
      { email_key: 'welcome', user: { email: 'a@example.org' } },
      { email_key: 'missing', user: { email: 'b@example.org' } },
    ];
    const results = await sendBatch(P, items, d);
    expect(results.map((r) => r.status === 'rejected' && r.error.type)).toEqual(['/problems/batch-not-sent', '/problems/not-found']);
    expect(queued).toEqual([]);
    expect((await sendBatch(P, [items[0]!], d)).map((r) => r.status)).toEqual(['accepted']);
  });

  it('fails as a whole when the bus does not take the batch, and when the catalog cannot be read', async () => {
    const busDown = deps({ queue: () => Promise.reject(new ServiceUnavailableError('The request could not be stored durably.', 5)) });
    await expect(sendBatch(P, [{ email_key: 'welcome', user: { email: 'a@example.org' } }], busDown.deps)).rejects.toThrow(
      ServiceUnavailableError,
    );
    const dbDown = deps({ resolve: () => Promise.reject(new Error('connection reset')) });
    await expect(sendBatch(P, [{ email_key: 'welcome', user: { email: 'a@example.org' } }], dbDown.deps)).rejects.toThrow(
      'connection reset',
    );
  });
});

describe('message ids', () => {
  it('45.9 named from an Idempotency-Key’s nonce, each item’s id is the same on every retry and its own; without one, random', () => {
    const ids = messageIds('a'.repeat(32));
    expect(ids(0)).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(messageIds('a'.repeat(32))(0)).toBe(ids(0));
    expect(ids(1)).not.toBe(ids(0));
    expect(messageIds('b'.repeat(32))(0)).not.toBe(ids(0));
    expect(messageIds(undefined)(0)).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(messageIds(undefined)(0)).not.toBe(messageIds(undefined)(0));
  });

  it('46.1 an id carries the time its send was accepted, or its Idempotency-Key was first claimed', () => {
    const at = Date.parse('2026-12-03T10:00:00.123Z');
    expect(acceptedTimeOf(messageIds(undefined, () => at)(0))).toBe(at);
    const claimed = new Date(at - 60_000);
    const nonce = newIdempotencyNonce(claimed);
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(acceptedTimeOf(messageIds(nonce, () => at)(3))).toBe(claimed.getTime());
    expect(acceptedTimeOf('msg_not-one-of-ours')).toBeUndefined();
  });

  it('45.9 a retried batch names each item as the first attempt did, whichever item is accepted first', async () => {
    const attempt = async () => {
      const { deps: d, queued } = deps({
        newMessageId: messageIds('c'.repeat(32)),
        // Each email's plan comes after its own delay, so the items finish in a different order each time.
        resolve: (emailKey) =>
          new Promise((resolve) =>
            setTimeout(
              () => resolve({ emailId: `e-${emailKey}`, emailKey, templateId: 't1', templateVersion: 1, templateRevision: 1 }),
              Math.random() * 20,
            ),
          ),
      });
      await sendBatch(
        P,
        ['a', 'b', 'c', 'd', 'e', 'f'].map((key) => ({ email_key: key, user: { email: `${key}@example.org` } })),
        d,
      );
      return Object.fromEntries(queued.flat().map((t) => [t.command.emailKey, t.command.messageId]));
    };
    const first = await attempt();
    expect(new Set(Object.values(first)).size).toBe(6);
    expect(await attempt()).toEqual(first);
  });
});
