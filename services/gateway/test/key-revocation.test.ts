import { basicAuth, call } from '@postbus/testing';
import { createTestClient, startTestGateway, type TestClient, type TestGateway } from './helpers';

interface Key {
  id: string;
  auth: string;
}

describe('revoking full keys at the same time, on two gateway instances (issue 30)', () => {
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    a = await startTestGateway();
    // A second instance of the same deployment: same database, same topics.
    b = await startTestGateway({ GATEWAY_DB_NAME: a.dbName, KAFKA_NAMESPACE: a.namespace });
  });

  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** A client with `count` full keys (its first one included). */
  const clientWithFullKeys = async (count: number): Promise<{ client: TestClient; keys: Key[] }> => {
    const client = await createTestClient(a.config);
    const keys: Key[] = [{ id: client.keyId, auth: client.auth }];
    while (keys.length < count) {
      const made = await call(a.url, 'POST', '/v1/keys', { auth: client.auth, json: { name: `full ${keys.length}`, scope: 'full' } });
      expect(made.status).toBe(201);
      keys.push({ id: made.body.id as string, auth: basicAuth(client.clientId, made.body.api_key as string) });
    }
    return { client, keys };
  };

  /** The client's keys of scope full that are not revoked, as the database has them (read through a key that is). */
  const validFullKeys = async (keys: Key[]): Promise<string[]> => {
    for (const key of keys) {
      const listed = await call(a.url, 'GET', '/v1/keys', { auth: key.auth });
      if (listed.status !== 200) continue;
      return (listed.body.data as Array<{ id: string; scope: string; revoked_at: string | null }>)
        .filter((k) => k.scope === 'full' && k.revoked_at === null)
        .map((k) => k.id);
    }
    return [];
  };

  /** Each key revokes itself, all at once, alternating between the two instances. */
  const revokeAllAtOnce = (keys: Key[]) =>
    Promise.all(keys.map((key, i) => call(i % 2 === 0 ? a.url : b.url, 'DELETE', `/v1/keys/${key.id}`, { auth: key.auth })));

  it('when both full keys of a client are revoked in parallel, one DELETE is a 409 and a full key remains (10 rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const { keys } = await clientWithFullKeys(2);
      const answers = await revokeAllAtOnce(keys);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body.type).toBe('/problems/last-full-key');
      const remaining = await validFullKeys(keys);
      expect(remaining).toHaveLength(1);
      const survivor = keys.find((k) => k.id === remaining[0])!;
      expect((await call(b.url, 'GET', '/v1/projects', { auth: survivor.auth })).status).toBe(200);
    }
  });

  it('when three full keys are revoked in parallel, exactly two go and the third still manages the client (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const { keys } = await clientWithFullKeys(3);
      const answers = await revokeAllAtOnce(keys);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 409]);
      const remaining = await validFullKeys(keys);
      expect(remaining).toHaveLength(1);
      const survivor = keys.find((k) => k.id === remaining[0])!;
      expect((await call(a.url, 'GET', '/v1/keys', { auth: survivor.auth })).status).toBe(200);
    }
  });

  it('sdk keys are revoked alongside without holding up the full ones, and a revoked key is refused at once', async () => {
    const { client, keys } = await clientWithFullKeys(2);
    const sdk = await call(a.url, 'POST', '/v1/keys', { auth: client.auth, json: { name: 'sdk', scope: 'sdk' } });
    expect(sdk.status).toBe(201);
    const answers = await Promise.all([
      call(a.url, 'DELETE', `/v1/keys/${sdk.body.id as string}`, { auth: keys[0]!.auth }),
      call(b.url, 'DELETE', `/v1/keys/${keys[1]!.id}`, { auth: keys[0]!.auth }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(await validFullKeys(keys)).toEqual([keys[0]!.id]);
    expect((await call(a.url, 'GET', '/v1/projects', { auth: keys[1]!.auth })).status).toBe(401);
    // Revoking again changes nothing and says when it was revoked.
    const again = await call(b.url, 'DELETE', `/v1/keys/${keys[1]!.id}`, { auth: keys[0]!.auth });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(answers[1].body.revoked_at);
  });
});
