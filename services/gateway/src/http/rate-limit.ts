import type { RequestHandler } from 'express';
import { TooManyRequestsError } from '@postbus/errors';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * A token bucket per client on this gateway instance: `perSecond` requests a second on average,
 * bursts up to twice that. Over it, 429 with Retry-After and the IETF RateLimit headers. 0 turns
 * it off. With several gateway instances each enforces its own share.
 */
export function rateLimit(perSecond: number, now: () => number = Date.now): RequestHandler {
  if (perSecond <= 0) return (_req, _res, next) => next();
  const capacity = perSecond * 2;
  const buckets = new Map<string, Bucket>();
  const policy = `"client";q=${perSecond};w=1`;
  return (req, _res, next) => {
    const clientId = req.client?.clientId;
    if (!clientId) return next();
    const at = now();
    let bucket = buckets.get(clientId);
    if (!bucket) buckets.set(clientId, (bucket = { tokens: capacity, updatedAt: at }));
    bucket.tokens = Math.min(capacity, bucket.tokens + ((at - bucket.updatedAt) / 1000) * perSecond);
    bucket.updatedAt = at;
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      throw new TooManyRequestsError(
        `This client may send ${perSecond} requests a second (bursts of ${capacity}); retry after ${retryAfter} s.`,
        retryAfter,
        {
          'RateLimit-Policy': policy,
          RateLimit: `"client";r=0;t=${retryAfter}`,
        },
      );
    }
    bucket.tokens -= 1;
    next();
  };
}
