export { badlyEncodedPath, problemHandler, notFoundHandler, requestError } from './problems';
export { requestId } from './request-id';
export { healthRouter, metricsRouter, createMetricsRegistry, type ReadinessCheck } from './health';
export {
  InternalTokens,
  internalApiSecret,
  internalTokenVerifier,
  requireInternalToken,
  INTERNAL_TOKEN_TTL_SECONDS,
} from './internal-auth';
export { listen, closeServer, onShutdown, exitOnFatal } from './server';
export { startInternalServer } from './internal-server';
export { runService, type RunningService } from './run-service';
export { every, type EveryOptions, type Repeating } from './every';
export { startInSteps, Teardown } from './teardown';
export { filteredPage, type FilteredPageOptions } from './pagination';
export { decodeCursor, encodeCursor, invalidCursor, isSequence, isSequenceMap, type CursorFilters, type CursorPosition } from './cursor';
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
export {
  compileRoute,
  defineRoute,
  routeDefiner,
  sendReply,
  validatedInput,
  type CompiledRoute,
  type HandlerInput,
  type Reply,
  type RouteInput,
  type RouteSpec,
} from './route';
export { routeTree, serveRoutes, type AnswerRoute } from './route-tree';
export { compileBody, compileText, invalidUtf8Offset, loneSurrogates, toFieldErrors, type Validator } from './validation';
