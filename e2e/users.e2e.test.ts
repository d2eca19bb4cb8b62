import { connectDb } from '@postbus/db';
import { defaultMongoUrl, waitFor } from '@postbus/testing';
import { projectCall, withSystemAndClient } from './project-api';
import type { DemoClient, RunningSystem } from './system';

describe('users through the public API', () => {
  let system: RunningSystem;
  let client: DemoClient;

  withSystemAndClient({}, (started) => ({ system, client } = started));

  const api = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);

  it('a user created through the API can be read back within 2 s, updated by email and by user_id, and unsubscribed', async () => {
    const created = await api('POST', '/users', {
      email: 'Grace.Hopper@Example.com',
      user_id: 'gh-1906',
      fields: { name: 'Grace Hopper', country: 'US', language: 'en-US', gender: 'female', age: 85, rank: 'rear admiral', ships: 3 },
    });
    expect(created.status).toBe(200);
    const startedAt = Date.now();
    const profile = await waitFor(
      async () => {
        const res = await api('GET', '/users?email=grace.hopper@example.com');
        return res.status === 200 ? res.body : undefined;
      },
      { timeoutMs: 2000, intervalMs: 50, what: 'the created user' },
    );
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(profile).toMatchObject({
      email: 'grace.hopper@example.com',
      user_id: 'gh-1906',
      name: 'Grace Hopper',
      country: 'US',
      language: 'en-US',
      gender: 'female',
      age: 85,
      fields: { rank: 'rear admiral', ships: 3 },
      subscription: { status: 'subscribed', unsubscribed_at: null, reason: null },
    });

    expect(
      (await api('PATCH', '/users/by-email', { email: 'GRACE.HOPPER@example.com', fields: { country: 'NL', ships: null } })).status,
    ).toBe(200);
    expect((await api('PATCH', '/users/gh-1906', { fields: { rank: 'commodore', language: null } })).status).toBe(200);
    const updated = await waitFor(
      async () => {
        const res = await api('GET', '/users/gh-1906');
        // The two updates travel under different keys (email, user_id), so either may land first.
        return res.body?.fields?.rank === 'commodore' && res.body?.country === 'NL' ? res.body : undefined;
      },
      { what: 'both updates' },
    );
    expect(updated).toMatchObject({ country: 'NL', language: null, fields: { rank: 'commodore' } });
    expect(updated.fields).not.toHaveProperty('ships');

    expect((await api('POST', '/users/unsubscribe', { email: 'grace.hopper@example.com', reason: 'retired' })).status).toBe(200);
    const unsubscribed = await waitFor(
      async () => {
        const res = await api('GET', '/users?email=grace.hopper@example.com');
        return res.body?.subscription?.status === 'unsubscribed' ? res.body : undefined;
      },
      { what: 'the unsubscribe' },
    );
    expect(unsubscribed.subscription).toMatchObject({ status: 'unsubscribed', reason: 'retired', unsubscribed_at: expect.any(String) });
  });

  it('reading an unknown user is a 404 problem, not an error', async () => {
    const res = await api('GET', '/users?email=nobody@example.com');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('when the users service is killed (SIGKILL) while 200 creates are accepted, then after its restart all 200 users exist, none twice, and no user document is left behind', async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `crash-${i}@example.com`);
    let accepted = 0;
    const send = async (email: string) => {
      const res = await api('POST', '/users', { email, fields: { n: Number(email.split(/[-@]/)[1]) } });
      expect(res.status).toBe(200);
      accepted++;
    };
    for (let i = 0; i < emails.length; i += 20) {
      await Promise.all(emails.slice(i, i + 20).map(send));
      if (i === 40) await system.services.users.kill(); // mid-stream, while the service is consuming
    }
    expect(accepted).toBe(200);
    await system.restart('users');

    // What a client reads: every email names exactly one profile with its own fields. (A kill between
    // a user's document and its key leaves a document no key names; its create, redelivered, meets
    // that document again by its _id, derived from the command, and completes it.)
    const missing = new Set(emails);
    const ids = new Map<string, string>();
    await waitFor(
      async () => {
        for (const email of [...missing]) {
          const res = await api('GET', `/users?email=${encodeURIComponent(email)}`);
          if (res.status !== 200) continue;
          expect(res.body.fields).toEqual({ n: Number(email.split(/[-@]/)[1]) });
          ids.set(email, res.body.id as string);
          missing.delete(email);
        }
        if (missing.size) throw new Error(`${200 - missing.size} of 200 readable`); // the timeout says how far it got
        return true;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'all 200 users after the restart' },
    );
    expect(new Set(ids.values()).size).toBe(200);
    const db = await connectDb({ url: defaultMongoUrl(), dbName: system.env['USERS_DB_NAME']! });
    try {
      const keys = await db.collection('user_keys').countDocuments({ _id: { $regex: `^${client.projectId}:email:crash-` } } as never);
      expect(keys).toBe(200); // one email key each, none twice
      const documents = await db.collection('users').countDocuments({ projectId: client.projectId, email: { $regex: '^crash-' } });
      expect(documents).toBe(200); // and no document left behind by the kill
    } finally {
      await db.close();
    }
    const sample = await api('GET', '/users?email=crash-199@example.com');
    expect(sample.body).toMatchObject({ email: 'crash-199@example.com', fields: { n: 199 } });
  }, 150_000); // a restart and the 90 s wait for every user fit in it
});
