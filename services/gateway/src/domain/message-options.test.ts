import { UnprocessableError } from '@postbus/errors';
import { messageOptions, refuseReservedHeaders } from './message-options';

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

  it('lets custom headers through, and none at all', () => {
    expect(() => refuseReservedHeaders({ 'X-Order-Id': '1', 'Reply-To-Note': 'x', Received2: 'y' })).not.toThrow();
    expect(() => refuseReservedHeaders(undefined)).not.toThrow();
  });

  it('puts on the command only the options given', () => {
    expect(messageOptions({})).toEqual({});
    expect(messageOptions({ headers: {}, tags: [], metadata: {} })).toEqual({});
    expect(messageOptions({ reply_to: ' help@shop.example ', headers: { 'X-A': '1' }, tags: ['t'], metadata: { k: 'v' } })).toEqual({
      replyTo: 'help@shop.example',
      headers: { 'X-A': '1' },
      tags: ['t'],
      metadata: { k: 'v' },
    });
  });
});
