import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { KeyScope } from './credentials';

const ISSUER = 'postbus';
const AUDIENCE = 'postbus-admin';

export interface SessionClaims {
  clientId: string;
  scope: KeyScope;
  /** The key that opened the session: revoking it ends the session. */
  keyId: string;
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

/**
 * Short-lived admin sessions: an HS256 JWT (jose) naming the client, and the id and scope of the
 * key that opened it. Without a configured secret each process signs with a random one, so sessions end
 * with the process and are not shared between gateway instances.
 */
export class Sessions {
  private readonly secret: Uint8Array;

  constructor(
    secret: string | undefined,
    private readonly ttlSeconds: number,
  ) {
    this.secret = secret ? new TextEncoder().encode(secret) : randomBytes(32);
  }

  async issue({ clientId, scope, keyId }: SessionClaims, now = new Date()): Promise<IssuedSession> {
    const expiresAt = new Date(now.getTime() + this.ttlSeconds * 1000);
    const token = await new SignJWT({ scope, key_id: keyId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(clientId)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.secret);
    return { token, expiresAt };
  }

  /** The claims of a valid, unexpired session token; undefined for anything else. */
  async verify(token: string): Promise<SessionClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.secret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      const scope = payload['scope'];
      const keyId = payload['key_id'];
      if (!payload.sub || (scope !== 'full' && scope !== 'sdk') || typeof keyId !== 'string') return undefined;
      return { clientId: payload.sub, scope, keyId };
    } catch {
      return undefined;
    }
  }
}
