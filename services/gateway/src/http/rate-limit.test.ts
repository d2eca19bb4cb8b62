import type { Request, Response } from 'express';
import { TooManyRequestsError } from '@postbus/errors';
import { rateLimit } from './rate-limit';

describe('rateLimit', () => {
  const request = (clientId: string) => ({ client: { clientId, scope: 'full' } }) as unknown as Request;
  const pass = (limit: ReturnType<typeof rateLimit>, clientId: string): boolean => {
    let passed = false;
    try {
      void limit(request(clientId), {} as Response, () => {
        passed = true;
      });
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
    }
    return passed;
  };

  it('lets a burst of twice the rate through, then refuses with 429 until tokens come back', () => {
    let clock = 0;
    const limit = rateLimit(5, () => clock);
    const results = Array.from({ length: 12 }, () => pass(limit, 'a'));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(pass(limit, 'b')).toBe(true); // every client has its own bucket
    clock += 1000;
    expect(Array.from({ length: 6 }, () => pass(limit, 'a')).filter(Boolean)).toHaveLength(5);
  });

  it('says when to retry, in Retry-After and the RateLimit headers', () => {
    const limit = rateLimit(1, () => 0);
    pass(limit, 'a');
    pass(limit, 'a');
    try {
      void limit(request('a'), {} as Response, () => undefined);
      throw new Error('not limited');
    } catch (error) {
      expect(error).toBeInstanceOf(TooManyRequestsError);
      const { status, headers } = error as TooManyRequestsError;
      expect(status).toBe(429);
      expect(headers).toMatchObject({ 'Retry-After': '1', 'RateLimit-Policy': '"client";q=1;w=1', RateLimit: '"client";r=0;t=1' });
    }
  });

  it('is off at 0', () => {
    const limit = rateLimit(0, () => 0);
    expect(Array.from({ length: 100 }, () => pass(limit, 'a')).every(Boolean)).toBe(true);
  });
});
