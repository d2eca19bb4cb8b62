import { Sessions } from './sessions';

describe('Sessions', () => {
  const secret = 'a-test-secret-that-is-long-enough-for-hs256';

  it('verifies what it issued, with the client, scope and key id', async () => {
    const sessions = new Sessions(secret, 900);
    const { token, expiresAt } = await sessions.issue({ clientId: 'cl_1', scope: 'full', keyId: 'key_1' });
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now() + 890_000);
    await expect(sessions.verify(token)).resolves.toEqual({ clientId: 'cl_1', scope: 'full', keyId: 'key_1' });
  });

  it('refuses expired tokens, tokens signed with another secret, and garbage', async () => {
    const sessions = new Sessions(secret, 60);
    const old = await sessions.issue({ clientId: 'cl_1', scope: 'full', keyId: 'key_1' }, new Date(Date.now() - 120_000));
    await expect(sessions.verify(old.token)).resolves.toBeUndefined();
    const foreign = await new Sessions('another-secret-that-is-long-enough-for-hs256', 60).issue({
      clientId: 'cl_1',
      scope: 'full',
      keyId: 'key_1',
    });
    await expect(sessions.verify(foreign.token)).resolves.toBeUndefined();
    await expect(sessions.verify('not.a.jwt')).resolves.toBeUndefined();
  });
});
