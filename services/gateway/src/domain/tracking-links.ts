import type { MessageData } from '@postbus/contracts';
import type { TrackingClaim } from '@postbus/crypto';

export type TrackingEventType = 'tracking.opened' | 'tracking.clicked' | 'tracking.unsubscribed';

/**
 * Whether a verified link answers on this host: only on the one its link was sent with (the
 * message's tracking domain, or the public host for unsubscribe links); another tenant's domain
 * pointing here is no alias. A claim naming no host answers anywhere.
 */
export const answersOnHost = (claim: Pick<TrackingClaim, 'host'>, hostname: string): boolean =>
  claim.host === undefined || claim.host === hostname.toLowerCase().replace(/\.$/, '');

/** Where a click may go: an http(s) URL, exactly as signed when it is plain ASCII, else in its serialised form. */
export function redirectTarget(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  return /^[\x21-\x7e]+$/.test(url) ? url : parsed.href;
}

/** The tracking event a followed link records: a click names its URL, a copy's unsubscribe its copy. */
export const trackingEventOf = (type: TrackingEventType, claim: TrackingClaim, at: Date): MessageData<'tracking.opened'> => {
  const { messageId, projectId, url, copy } = claim;
  return {
    messageId,
    projectId,
    at: at.toISOString(),
    ...(type === 'tracking.clicked' && url !== undefined ? { url } : {}),
    ...(type === 'tracking.unsubscribed' && copy !== undefined ? { copy } : {}),
  };
};
