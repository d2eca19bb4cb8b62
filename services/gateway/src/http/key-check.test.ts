import { createLogger } from '@postbus/logger';
import { hashApiKey } from '../domain/credentials';
import type { ApiKeyDoc } from '../domain/ports/keys';
import type { ApiKeyRepository } from '../model/api-key.repository';
import { KeyCheck, MAX_KEY_CACHE_MS } from './key-check';

const logger = createLogger({ service: 'test', level: 'error' });

describe('KeyCheck', () => {
  const secret = 'pb_full_secret';
  const stored: ApiKeyDoc = {
    _id: 'key_00000000000000000001',
    clientId: 'cl_1',
    name: 'ci',
    scope: 'full',
    projectId: null,
    hash: hashApiKey(secret).toString('hex'),
    createdAt: new Date(0),
    lastUsedAt: null,
    revokedAt: null,
  };
  /** The database as another instance (or the CLI) changes it: this process only sees it through reads. */
  const fakeRepository = () => {
    const state = { key: { ...stored }, reads: 0 };
    const repository = {
      findByHash: (hash: string) => Promise.resolve(hash === state.key.hash ? (state.reads++, { ...state.key }) : null),
      findById: (id: string) => Promise.resolve(id === state.key._id ? (state.reads++, { ...state.key }) : null),
      touch: () => Promise.resolve(),
    } as unknown as ApiKeyRepository;
    return { state, repository };
  };

  it('caches a verified key for at most 1 s, whatever the configured TTL', async () => {
    let clock = 0;
    const { state, repository } = fakeRepository();
    const check = new KeyCheck(repository, 60_000, logger, () => clock);
    await expect(check.verify('cl_1', hashApiKey(secret))).resolves.toMatchObject({ keyId: stored._id, scope: 'full' });
    await check.verify('cl_1', hashApiKey(secret));
    expect(state.reads).toBe(1);
    state.key.revokedAt = new Date(); // revoked elsewhere, and this instance heard nothing
    clock += MAX_KEY_CACHE_MS + 1;
    await expect(check.verify('cl_1', hashApiKey(secret))).resolves.toBeUndefined();
  });

  it('a revocation heard on the bus refuses the key and its sessions at once, cache or not', async () => {
    const { repository } = fakeRepository();
    const check = new KeyCheck(repository, 60_000, logger, () => 0);
    await expect(check.verify('cl_1', hashApiKey(secret))).resolves.toBeDefined();
    await expect(check.active(stored._id)).resolves.toBeDefined();
    check.revoked(stored._id);
    await expect(check.verify('cl_1', hashApiKey(secret))).resolves.toBeUndefined();
    await expect(check.active(stored._id)).resolves.toBeUndefined();
  });

  it("refuses a key presented with another client's id", async () => {
    const { repository } = fakeRepository();
    const check = new KeyCheck(repository, 1000, logger);
    await expect(check.verify('cl_2', hashApiKey(secret))).resolves.toBeUndefined();
  });
});
