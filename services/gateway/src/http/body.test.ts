import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { SEND_BODY_LIMIT_BYTES } from '@postbus/contracts';
import { TooManyRequestsError } from '@postbus/errors';
import { bodyBudget, messagesOf } from './body';

/** A request of a client with a body of `length` bytes (undefined: sent chunked, without a length). */
const request = (clientId: string, length: number | undefined) =>
  ({
    client: { clientId, scope: 'full' },
    get: (name: string) =>
      name.toLowerCase() === 'content-length'
        ? length === undefined
          ? undefined
          : String(length)
        : length === undefined && name === 'transfer-encoding'
          ? 'chunked'
          : undefined,
  }) as unknown as Request;
const response = () => new EventEmitter() as unknown as Response & EventEmitter;

describe('bodyBudget: request body bytes one client has in flight', () => {
  it('refuses with 429 past the budget, counts a body until its answer is sent, and lets one large request alone through', () => {
    const budget = bodyBudget(10_000);
    const pass = (clientId: string, length: number | undefined) => {
      const res = response();
      try {
        budget(request(clientId, length), res, () => undefined);
        return res;
      } catch (error) {
        expect(error).toBeInstanceOf(TooManyRequestsError);
        expect((error as TooManyRequestsError).headers).toMatchObject({ 'Retry-After': '1' });
        return undefined;
      }
    };
    const first = pass('a', 6_000);
    const second = pass('a', 4_000);
    expect([first, second].every(Boolean)).toBe(true);
    expect(pass('a', 1)).toBeUndefined();
    expect(pass('b', 9_000)).toBeDefined(); // another client has its own budget
    first!.emit('finish');
    first!.emit('close'); // counted once
    expect(pass('a', 6_000)).toBeDefined();
    expect(pass('a', 1)).toBeUndefined();
    // Alone, a body larger than the budget passes: its size is the body limit's business.
    expect(pass('c', 50_000)).toBeDefined();
    expect(pass('c', 1)).toBeUndefined();
    // A body sent without a length counts as the largest a send may be.
    const chunked = bodyBudget(SEND_BODY_LIMIT_BYTES + 100);
    const res = response();
    chunked(request('d', undefined), res, () => undefined);
    expect(() => chunked(request('d', 200), response(), () => undefined)).toThrow(TooManyRequestsError);
    res.emit('close');
    chunked(request('d', 200), response(), () => undefined);
  });

  it('is off at 0', () => {
    const budget = bodyBudget(0);
    let passed = 0;
    for (let i = 0; i < 10; i++) budget(request('a', 1_000_000), response(), () => passed++);
    expect(passed).toBe(10);
  });
});

describe('messagesOf', () => {
  const post = (path: string, body: unknown) => ({ method: 'POST', path, body }) as unknown as Request;
  it('a send is one message, a batch one per item, anything else none', () => {
    expect(messagesOf(post('/projects/p1/emails/welcome/send', {}))).toBe(1);
    // A content send, which names no email, counts as one too.
    expect(messagesOf(post('/projects/p1/emails/send', {}))).toBe(1);
    expect(messagesOf(post('/projects/p1/emails/batch', { messages: [{}, {}, {}] }))).toBe(3);
    expect(messagesOf(post('/projects/p1/emails/batch', { messages: 'x' }))).toBe(0);
    expect(messagesOf(post('/projects/p1/users', { email: 'a@b.c' }))).toBe(0);
    expect(messagesOf({ method: 'GET', path: '/projects/p1/emails/batch' } as unknown as Request)).toBe(0);
  });
});
