export { badlyEncodedPath, problemHandler, notFoundHandler } from './problems';
export { requestId } from './request-id';
export { healthRouter, metricsRouter, createMetricsRegistry, type ReadinessCheck } from './health';
export { InternalTokens, internalApiSecret, requireInternalToken, INTERNAL_TOKEN_TTL_SECONDS } from './internal-auth';
export { listen, closeServer, onShutdown, exitOnFatal } from './server';
export { startInternalServer } from './internal-server';
export { runService, type RunningService } from './run-service';
export { every, type EveryOptions, type Repeating } from './every';
export {
  decodeCursor,
  decodeListCursor,
  encodeCursor,
  encodeListCursor,
  filteredPage,
  queryLimit,
  queryText,
  type Position,
  type Positioned,
} from './pagination';
export { auditQueries } from './query-audit';
export {
  AddressPolicy,
  UnsafeAddressError,
  canonicalIp,
  formatIpAddress,
  parseAllowedHost,
  parseIpAddress,
  portOf,
  unsafeKind,
  type AddressPolicyOptions,
  type UnsafeReason,
} from './outbound/address-policy';
