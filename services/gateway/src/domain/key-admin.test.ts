import { ConflictError } from '@postbus/errors';
import { hashApiKey } from './credentials';
import { KeyAdmin, publicKey } from './key-admin';
import type { ApiKeyDoc, KeyStore, RevocationClaim } from './ports/keys';

/** In-memory keys, and revocation claims numbered per client as the repository's unique insert numbers them. */
function fakeKeys(initial: Omit<ApiKeyDoc, 'hash' | 'createdAt' | 'lastUsedAt' | 'revokedAt' | 'clientId' | 'projectId'>[] = []) {
  const keys = new Map<string, ApiKeyDoc>(
    initial.map((k) => [
      k._id,
      { ...k, clientId: 'cl_1', projectId: null, hash: 'h', createdAt: new Date('2026-01-01'), lastUsedAt: null, revokedAt: null },
    ]),
  );
  const claims = new Map<string, { number: number; keyId: string; at: Date }>();
  const store: KeyStore = {
    create: (key) => {
      const doc = { ...key, lastUsedAt: null, revokedAt: null };
      keys.set(doc._id, doc);
      return Promise.resolve(doc);
    },
    list: (clientId) => Promise.resolve([...keys.values()].filter((k) => k.clientId === clientId).map((k) => ({ ...k }))),
    markRevoked: (keyId, at) => {
      const key = keys.get(keyId);
      if (!key || key.revokedAt) return Promise.resolve(false);
      key.revokedAt = at;
      return Promise.resolve(true);
    },
    latestRevocationClaim: (clientId): Promise<RevocationClaim> => {
      const mine = [...claims.entries()].filter(([id]) => id.startsWith(`${clientId}#`)).map(([, c]) => c);
      const latest = mine.sort((a, b) => b.number - a.number)[0];
      return Promise.resolve(latest ? { number: latest.number, keyId: latest.keyId, at: latest.at } : { number: 0, keyId: null, at: null });
    },
    claimRevocation: (clientId, number, keyId, at) => {
      if (claims.has(`${clientId}#${number}`)) return Promise.resolve(false);
      claims.set(`${clientId}#${number}`, { number, keyId, at });
      return Promise.resolve(true);
    },
  };
  return { store, keys, claims };
}

describe('KeyAdmin', () => {
  it('creates a key whose secret is in the answer only: the store keeps its digest', async () => {
    const { store, keys } = fakeKeys();
    const { key, apiKey } = await new KeyAdmin(store, () => Promise.resolve()).create('cl_1', '  CI  ', 'sdk');
    expect(apiKey).toMatch(/^pb_sdk_/);
    expect(key).toMatchObject({ clientId: 'cl_1', name: 'CI', scope: 'sdk', hash: hashApiKey(apiKey).toString('hex') });
    expect(JSON.stringify([...keys.values()])).not.toContain(apiKey);
    expect(JSON.stringify(publicKey(key))).not.toMatch(/hash|pb_sdk_/);
  });

  it('refuses to revoke the last valid full key unless forced, and tells the listeners once', async () => {
    const { store } = fakeKeys([
      { _id: 'key_full', name: 'a', scope: 'full' },
      { _id: 'key_sdk', name: 'b', scope: 'sdk' },
    ]);
    const told: string[] = [];
    const admin = new KeyAdmin(store, ({ keyId }) => (told.push(keyId), Promise.resolve()));
    await expect(admin.revoke('cl_1', 'key_full')).rejects.toBeInstanceOf(ConflictError);
    expect((await admin.revoke('cl_1', 'key_sdk'))?.revokedAt).toBeInstanceOf(Date);
    expect((await admin.revoke('cl_1', 'key_full', { allowLastFull: true }))?.revokedAt).toBeInstanceOf(Date);
    await admin.revoke('cl_1', 'key_full', { allowLastFull: true }); // again: no change, no second announcement
    expect(told).toEqual(['key_sdk', 'key_full']);
    expect(await admin.revoke('cl_1', 'key_none')).toBeNull();
  });

  it('of two full keys revoked at once, one stays', async () => {
    const { store, keys } = fakeKeys([
      { _id: 'key_a', name: 'a', scope: 'full' },
      { _id: 'key_b', name: 'b', scope: 'full' },
    ]);
    const admin = new KeyAdmin(store, () => Promise.resolve());
    const results = await Promise.allSettled([admin.revoke('cl_1', 'key_a'), admin.revoke('cl_1', 'key_b')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect([...keys.values()].filter((k) => !k.revokedAt)).toHaveLength(1);
  });
});
