export { SecretBox, type Sealed } from './secret-box';
export { TrackingTokens, type TrackingAction, type TrackingClaim } from './tracking-tokens';
