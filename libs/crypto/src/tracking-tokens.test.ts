import { TrackingTokens } from './tracking-tokens';

describe('TrackingTokens', () => {
  const tokens = new TrackingTokens('x'.repeat(32));

  it('round-trips a click with its URL and checks the expected action', async () => {
    const token = await tokens.sign({ action: 'click', messageId: 'msg_1', projectId: 'p1', url: 'https://example.com/a?b=1' });
    expect(await tokens.verify(token, 'click')).toEqual({
      action: 'click',
      messageId: 'msg_1',
      projectId: 'p1',
      url: 'https://example.com/a?b=1',
    });
    expect(await tokens.verify(token, 'open')).toBeNull();
  });

  it("round-trips a copy's unsubscribe with the copy's position", async () => {
    const token = await tokens.sign({ action: 'unsubscribe', messageId: 'msg_1', projectId: 'p1', copy: 2 });
    expect(await tokens.verify(token, 'unsubscribe')).toEqual({ action: 'unsubscribe', messageId: 'msg_1', projectId: 'p1', copy: 2 });
  });

  it('refuses a tampered token and one signed with another secret', async () => {
    const token = await tokens.sign({ action: 'click', messageId: 'msg_1', projectId: 'p1', url: 'https://example.com/' });
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ a: 'c', m: 'msg_1', p: 'p1', u: 'https://evil.example/' })).toString('base64url');
    expect(await tokens.verify(`${header}.${forged}.${signature}`)).toBeNull();
    expect(await tokens.verify(`${header}.${payload}.${signature}x`)).toBeNull();
    expect(await new TrackingTokens('y'.repeat(32)).verify(token)).toBeNull();
    expect(await tokens.verify('not-a-token')).toBeNull();
  });
});

describe('TrackingTokens expiry and host', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  let now = Date.now();
  const tokens = new TrackingTokens('x'.repeat(32), { ttlMs: 180 * DAY_MS, now: () => now });

  it('13.6 a token answers for its time to live (180 days by default) and not after; the host it was signed for comes back', async () => {
    now = Date.now();
    const token = await tokens.sign({ action: 'open', messageId: 'msg_1', projectId: 'p1', host: 'Links.Shop.example' });
    expect(await tokens.verify(token, 'open')).toEqual({ action: 'open', messageId: 'msg_1', projectId: 'p1', host: 'links.shop.example' });
    now += 179 * DAY_MS;
    expect(await tokens.verify(token, 'open')).not.toBeNull();
    now += 2 * DAY_MS;
    expect(await tokens.verify(token, 'open')).toBeNull();
    const [, payload] = (await new TrackingTokens('x'.repeat(32)).sign({ action: 'open', messageId: 'm', projectId: 'p' })).split('.');
    const { exp } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number };
    expect(exp * 1000 - Date.now()).toBeGreaterThan(179.9 * DAY_MS);
  });
});
