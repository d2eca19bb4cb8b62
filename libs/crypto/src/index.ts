export { ReturnPathTokens, type ReturnPathClaim, type ReturnPathPurpose } from './return-path-tokens';
export { SecretBox, type Sealed } from './secret-box';
export {
  DEFAULT_TRACKING_TOKEN_TTL_DAYS,
  TrackingTokens,
  type TrackingAction,
  type TrackingClaim,
  type TrackingTokenOptions,
} from './tracking-tokens';
