import type { TrackingClaim } from '@postbus/crypto';
import { answersOnHost, redirectTarget, trackingEventOf } from './tracking-links';

const claim = (over: Partial<TrackingClaim> = {}): TrackingClaim => ({ messageId: 'msg_1', projectId: 'p1', ...over }) as TrackingClaim;

describe('tracking links', () => {
  it('a link answers only on the host it was sent with', () => {
    expect(answersOnHost(claim({ host: 'click.example.com' }), 'Click.Example.com.')).toBe(true);
    expect(answersOnHost(claim({ host: 'click.example.com' }), 'click.other.com')).toBe(false);
    expect(answersOnHost(claim(), 'anything.example')).toBe(true);
  });

  it('a click goes only to an http(s) URL, as signed when it is plain ASCII', () => {
    expect(redirectTarget('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
    expect(redirectTarget('https://exämple.com/ä')).toBe('https://xn--exmple-cua.com/%C3%A4');
    expect(redirectTarget('javascript:alert(1)')).toBeUndefined();
    expect(redirectTarget('ftp://example.com/')).toBeUndefined();
    expect(redirectTarget('not a url')).toBeUndefined();
  });

  it('the event names the message, and a click its URL', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(trackingEventOf('tracking.clicked', claim({ url: 'https://example.com' }), at)).toEqual({
      messageId: 'msg_1',
      projectId: 'p1',
      at: '2026-01-01T00:00:00.000Z',
      url: 'https://example.com',
    });
    expect(trackingEventOf('tracking.opened', claim({ url: 'https://example.com' }), at)).not.toHaveProperty('url');
    // A copy's own unsubscribe link unsubscribes that copy.
    expect(trackingEventOf('tracking.unsubscribed', claim({ copy: 2 }), at)).toEqual({
      messageId: 'msg_1',
      projectId: 'p1',
      at: '2026-01-01T00:00:00.000Z',
      copy: 2,
    });
  });
});
