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
