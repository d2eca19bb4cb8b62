import { hashApiKey, KEY_SCOPES, keyMatches, newApiKey, parseBasic } from './credentials';

describe('credentials', () => {
  it('parses what curl -u sends', () => {
    const header = `Basic ${Buffer.from('cl_1:pb_full_abc:def').toString('base64')}`;
    expect(parseBasic(header)).toEqual({ clientId: 'cl_1', key: 'pb_full_abc:def' });
  });

  it('rejects other schemes and malformed values', () => {
    expect(parseBasic('Bearer abc')).toBeUndefined();
    expect(parseBasic(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeUndefined();
    expect(parseBasic(undefined)).toBeUndefined();
  });

  it('names the scope in the key: pb_full_, pb_sdk_, pb_test_', () => {
    expect(KEY_SCOPES.map((scope) => newApiKey(scope).slice(0, scope.length + 4))).toEqual(['pb_full_', 'pb_sdk_', 'pb_test_']);
  });

  it('matches a key only against its own digest', () => {
    const key = newApiKey('sdk');
    expect(key).toMatch(/^pb_sdk_[A-Za-z0-9_-]{43}$/);
    const stored = hashApiKey(key).toString('hex');
    expect(keyMatches(hashApiKey(key), stored)).toBe(true);
    expect(keyMatches(hashApiKey(`${key}x`), stored)).toBe(false);
  });
});
