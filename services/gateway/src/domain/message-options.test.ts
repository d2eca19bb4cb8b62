import { UnprocessableError } from '@postbus/errors';
import { messageOptions, refuseBadCopies, refuseBadSendAt, refuseReservedHeaders } from './message-options';

describe('a send’s options', () => {
  it('refuses the headers Postbus sets, by any case and by prefix, naming each', () => {
    let thrown: unknown;
    try {
      refuseReservedHeaders({
        'X-Order-Id': '1',
        from: 'a@b.c',
        'List-Unsubscribe-Post': 'x',
        'content-type': 'text/plain',
        'X-Postbus-Message-Id': 'm',
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnprocessableError);
    const problem = (thrown as UnprocessableError).toProblem();
    expect(problem.status).toBe(422);
    expect(problem.detail).toContain('from, List-Unsubscribe-Post, content-type, X-Postbus-Message-Id');
    expect(problem.errors?.map((e) => e.pointer)).toEqual([
      '/headers/from',
      '/headers/List-Unsubscribe-Post',
      '/headers/content-type',
      '/headers/X-Postbus-Message-Id',
    ]);
  });

  it.each([
    ['Sender', 'x@y'],
    ['Resent-From', 'ceo@bank.example'],
    ['ARC-Seal', 'i=1; a=rsa-sha256; cv=none; d=evil.example'],
    ['Authentication-Results', 'mx.example; dkim=pass'],
    ['Disposition-Notification-To', 'watcher@evil.example'],
    ['Received', 'from nowhere'],
    ['Return-Path', '<bounces@evil.example>'],
    ['Reply-To', 'other@example.com'],
  ])('refuses %s with a 422 reserved-header problem naming /headers/<name>', (name, value) => {
    let thrown: unknown;
    try {
      refuseReservedHeaders({ 'X-Order-Id': '1', [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnprocessableError);
    const problem = (thrown as UnprocessableError).toProblem();
    expect(problem).toMatchObject({ status: 422, type: '/problems/reserved-header' });
    expect(problem.detail).toContain(`may not set ${name}:`);
    expect(problem.errors).toEqual([{ pointer: `/headers/${name}`, message: 'is a reserved header' }]);
  });

  it('points a Reply-To to reply_to and copies to cc and bcc', () => {
    expect(() => refuseReservedHeaders({ 'Reply-To': 'a@b.c' })).toThrow(/reply_to.*cc and bcc/);
  });

  it('lets custom headers through, threading headers too, and none at all', () => {
    expect(() => refuseReservedHeaders({ 'X-Order-Id': '1', 'Reply-To-Note': 'x', Received2: 'y' })).not.toThrow();
    expect(() =>
      refuseReservedHeaders({ 'In-Reply-To': '<a@example.com>', References: '<a@example.com>', 'List-Id': 'shop' }),
    ).not.toThrow();
    expect(() => refuseReservedHeaders(undefined)).not.toThrow();
  });

  it('takes a send_at from now (less a minute of clock skew) up to 30 days ahead, and refuses others naming /send_at', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const refusal = (sendAt: string) => {
      try {
        refuseBadSendAt(sendAt, now);
      } catch (error) {
        return (error as UnprocessableError).toProblem();
      }
      return undefined;
    };
    expect(refusal('2026-11-27T12:00:00Z')).toBeUndefined();
    expect(refusal('2026-11-27T11:59:01Z')).toBeUndefined();
    expect(refusal('2026-12-27T12:00:59Z')).toBeUndefined();
    expect(refusal('2026-12-27T13:00:00+01:00')).toBeUndefined();
    expect(refusal('2026-11-27T11:58:59Z')).toMatchObject({ status: 422, errors: [{ pointer: '/send_at', message: 'is in the past' }] });
    expect(refusal('2026-12-28T12:00:00Z')).toMatchObject({
      status: 422,
      errors: [{ pointer: '/send_at', message: 'is more than 30 days ahead' }],
    });
    expect(() => refuseBadSendAt(undefined, now)).not.toThrow();
  });

  it('puts on the command only the options given', () => {
    expect(messageOptions({})).toEqual({});
    expect(messageOptions({ headers: {}, tags: [], metadata: {} })).toEqual({});
    expect(
      messageOptions({
        reply_to: ' help@shop.example ',
        headers: { 'X-A': '1' },
        tags: ['t'],
        metadata: { k: 'v' },
        send_at: '2026-12-01T09:00:00+01:00',
      }),
    ).toEqual({
      replyTo: 'help@shop.example',
      headers: { 'X-A': '1' },
      tags: ['t'],
      metadata: { k: 'v' },
      sendAt: '2026-12-01T08:00:00.000Z',
    });
  });

  const problemOf = (run: () => void) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(UnprocessableError);
      return (error as UnprocessableError).toProblem();
    }
    throw new Error('nothing was refused');
  };
  const addresses = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}@copies.example`);

  it('refuses 50 copies (51 addresses with the recipient), naming the field that went over', () => {
    const tooMany = problemOf(() => refuseBadCopies('ada@example.com', { cc: addresses(25, 'c'), bcc: addresses(25, 'b') }));
    expect(tooMany.status).toBe(422);
    expect(tooMany.type).toContain('too-many-copies');
    expect(tooMany.errors?.map((e) => e.pointer)).toEqual(['/bcc']);
    expect(problemOf(() => refuseBadCopies('ada@example.com', { cc: addresses(50, 'c') })).errors?.map((e) => e.pointer)).toEqual(['/cc']);
    expect(problemOf(() => refuseBadCopies('ada@example.com', { to: addresses(50, 't') })).errors?.map((e) => e.pointer)).toEqual(['/to']);
    expect(() =>
      refuseBadCopies('ada@example.com', { to: addresses(9, 't'), cc: addresses(20, 'c'), bcc: addresses(20, 'b') }),
    ).not.toThrow();
    expect(() => refuseBadCopies('ada@example.com', {})).not.toThrow();
  });

  it('refuses a copy repeating the recipient or another copy, whatever its case', () => {
    const repeated = problemOf(() =>
      refuseBadCopies(' Ada@Example.com', { cc: ['ada@example.com', 'bo@example.com'], bcc: ['cy@example.com', 'BO@example.com '] }),
    );
    expect(repeated.type).toContain('repeated-copy');
    expect(repeated.errors?.map((e) => e.pointer)).toEqual(['/cc/0', '/bcc/1']);
    // A content send's further To addresses stand at their place in its to list, after the recipient.
    const again = problemOf(() =>
      refuseBadCopies('ada@example.com', { to: ['bo@example.com', 'ADA@example.com'], cc: ['bo@example.com'] }),
    );
    expect(again.errors?.map((e) => e.pointer)).toEqual(['/to/2', '/cc/0']);
  });

  it('puts copies on the command normalised, and none when the lists are empty', () => {
    expect(messageOptions({ cc: [], bcc: [] })).toEqual({});
    expect(messageOptions({ cc: [' Bo@Example.com'], bcc: ['CY@example.com'] })).toEqual({
      cc: ['bo@example.com'],
      bcc: ['cy@example.com'],
    });
  });
});
