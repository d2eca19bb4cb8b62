import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { UnauthorizedError } from '@postbus/errors';
import type { Logger } from '@postbus/logger';

/** How long a token for an internal call lives: long enough to reuse, short enough that a leaked one soon expires. */
export const INTERNAL_TOKEN_TTL_SECONDS = 60;
/** A cached token is replaced this long before it expires, so no call carries one that expires on the way. */
const RENEW_BEFORE_SECONDS = 15;
/** Tolerated clock difference between the caller and the service. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Verified tokens remembered per server (a few callers, one current token each, plus the one before). */
const VERIFIED_CACHE_SIZE = 64;

const encodeSecret = (secret: string): Uint8Array => new TextEncoder().encode(secret);

/**
 * INTERNAL_API_SECRET, or (development only, outside NODE_ENV=production where it is required) a
 * random one for this process: the service then refuses every other process's calls, which says so.
 */
export function internalApiSecret(configured: string, logger: Logger): string {
  if (configured) return configured;
  logger.warn('INTERNAL_API_SECRET is not set: internal API calls are signed and checked with a random key that ends with this process');
  return randomBytes(32).toString('base64url');
}

/**
 * Mints the caller's bearer tokens for other services' internal APIs (HS256 with the shared
 * secret, audience: the service called, issuer: the caller). One token per audience is reused
 * until shortly before it expires, so the hot path signs nothing.
 */
export class InternalTokens {
  private readonly key: Uint8Array;
  private readonly cache = new Map<string, { authorization: Promise<string>; renewAt: number }>();

  constructor(
    secret: string,
    /** The calling service, e.g. "gateway". */
    private readonly issuer: string,
    private readonly ttlSeconds = INTERNAL_TOKEN_TTL_SECONDS,
  ) {
    this.key = encodeSecret(secret);
  }

  /** The Authorization header value for a call to `audience` (e.g. "users"). */
  authorization(audience: string): Promise<string> {
    const now = Date.now();
    const cached = this.cache.get(audience);
    if (cached && now < cached.renewAt) return cached.authorization;
    const authorization = new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + this.ttlSeconds)
      .sign(this.key)
      .then((token) => `Bearer ${token}`);
    const renewAt = now + Math.max(1, this.ttlSeconds - RENEW_BEFORE_SECONDS) * 1000;
    this.cache.set(audience, { authorization, renewAt });
    // A failed signing is not kept: the next call tries again.
    authorization.catch(() => this.cache.delete(audience));
    return authorization;
  }
}

function refused(detail: string): UnauthorizedError {
  const error = new UnauthorizedError(detail);
  error.headers['WWW-Authenticate'] = 'Bearer realm="postbus-internal"';
  return error;
}

/**
 * Verifies internal bearer tokens for one audience (this service): signed with the shared secret
 * (HS256 only), addressed to `audience`, not expired, and, when `issuer` is given, minted by that
 * caller. A token already verified is recognised until it expires without verifying it again.
 * Answers why a token is refused, or undefined when it is good.
 */
export function internalTokenVerifier({
  secret,
  audience,
  issuer,
}: {
  secret: string;
  audience: string;
  issuer?: string;
}): (token: string) => Promise<string | undefined> {
  const key = encodeSecret(secret);
  const verified = new Map<string, number>();
  const remember = (token: string, expiresAtMs: number) => {
    if (verified.size >= VERIFIED_CACHE_SIZE) {
      const now = Date.now();
      for (const [t, exp] of verified) if (exp <= now) verified.delete(t);
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.clear();
    }
    verified.set(token, expiresAtMs);
  };
  return async (token) => {
    const known = verified.get(token);
    if (known !== undefined && Date.now() < known) return undefined;
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        audience,
        ...(issuer !== undefined ? { issuer } : {}),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iss'],
      });
      remember(token, (payload.exp ?? 0) * 1000);
      return undefined;
    } catch (error) {
      return error instanceof joseErrors.JWTExpired ? 'has expired' : 'is not valid for this service';
    }
  };
}

/**
 * The one check of every internal API: the request carries a bearer token signed with the shared
 * secret (HS256 only), addressed to this service and not expired; anything else is a 401 problem.
 */
export function requireInternalToken({ secret, audience }: { secret: string; audience: string }): RequestHandler {
  const verify = internalTokenVerifier({ secret, audience });
  return (req, _res, next) => {
    const header = req.get('authorization');
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!token) return next(refused('Internal APIs require a bearer token signed with INTERNAL_API_SECRET.'));
    verify(token).then(
      (why) => next(why === undefined ? undefined : refused(`The internal API token ${why}.`)),
      (error: unknown) => next(error),
    );
  };
}
