import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { KeyCheck } from '../http/key-check';

/** `auth.key_revoked`: every gateway instance forgets a revoked key at once, not when its cache entry expires. */
export const authKeyRevokedHandler = (keyCheck: KeyCheck) =>
  defineHandler({
    topic: Topics.Auth,
    type: 'auth.key_revoked',
    handle: ({ keyId }) => Promise.resolve(keyCheck.revoked(keyId)),
  });
