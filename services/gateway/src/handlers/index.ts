import type { KeyCheck } from '../http/key-check';
import type { SharedCounters } from '../http/rate-limit';
import { authKeyRevokedHandler } from './auth-key-revoked.handler';
import { gatewayUsageHandler } from './gateway-usage.handler';

/** What each gateway instance hears from the others: revoked keys and request counts (a group per instance, so each hears all). */
export const instanceHandlers = (keyCheck: KeyCheck, counters: SharedCounters) => [
  authKeyRevokedHandler(keyCheck),
  gatewayUsageHandler(counters),
];
