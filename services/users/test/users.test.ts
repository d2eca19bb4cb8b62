import { randomBytes } from 'node:crypto';
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { dlqOf, Topics, userOrderingKey } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { connectDb } from '@postbus/db';
import {
  call,
  defaultKafkaBrokers,
  defaultMongoUrl,
  erasureRuns,
  inProcessEnv,
  internalAuthorization,
  otherLocalAddresses,
  portOpen,
  shutDown,
  TopicRecorder,
  uniqueDbName,
  uniqueName,
  waitFor,
} from '@postbus/testing';
import { start, type UsersService } from '../src/app';
import { UserRepository } from '../src/model/user.repository';
import { userModels } from '../src/model/user.schema';
import { UsersConfig } from '../src/config';

const RETRY_WINDOW_MS = 1500;

describe('users service', () => {
  const namespace = uniqueName('t');
  const projectId = 'aaaaaaaaaaaaaaaaaaaaaaaa';
  const logger = createLogger({ service: 'users-test', level: 'error' });
  let service: UsersService;
  let bus: Bus;
  let events: TopicRecorder;
  let url: string;
  let dbName: string;

  beforeAll(async () => {
    dbName = uniqueDbName('users');
    const env = inProcessEnv(namespace, { USERS_DB_NAME: dbName, USER_UPDATE_RETRY_WINDOW_MS: String(RETRY_WINDOW_MS) });
    const config = loadConfig(UsersConfig, env);
    service = await start({ config, logger });
    url = `http://127.0.0.1:${service.port}`;
    bus = new Bus({ ...busOptions(config), service: 'test', logger });
    events = await new TopicRecorder(defaultKafkaBrokers().split(','), [
      `${Topics.UserEvents}.${namespace}`,
      dlqOf(`${Topics.UserCommands}.${namespace}`),
      `${Topics.ErasureEvents}.${namespace}`,
    ]).start();
  });

  afterAll(() => shutDown(events, bus, service));

  const profile = async (email: string) => {
    const res = await call(url, 'GET', `/internal/projects/${projectId}/users?email=${encodeURIComponent(email)}`, {
      auth: await internalAuthorization('users'),
    });
    return res.status === 200 ? res.body : undefined;
  };
  const now = () => new Date().toISOString();

  describe('its internal API', () => {
    const path = `/internal/projects/${projectId}/users?email=ann%40example.com`;

    it('13.1 internal APIs: a call without a valid internal token is refused with 401', async () => {
      const refusedWith = async (auth?: string) => {
        const res = await call(url, 'GET', path, auth ? { auth } : {});
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        return [res.status, res.body?.type];
      };
      const unauthorized = [401, '/problems/unauthorized'];
      expect(await refusedWith()).toEqual(unauthorized);
      expect(await refusedWith('Bearer not-a-token')).toEqual(unauthorized);
      expect(await refusedWith(await internalAuthorization('users', 'a-different-secret-of-thirty-two-characters'))).toEqual(unauthorized);
      expect(await refusedWith(await internalAuthorization('mailer'))).toEqual(unauthorized);
      // with the shared secret, addressed to this service: answered (404: nobody of that email yet, or the profile)
      expect([200, 404]).toContain((await call(url, 'GET', path, { auth: await internalAuthorization('users') })).status);
      // probes need no token
      expect((await call(url, 'GET', '/readyz')).status).toBe(200);
      expect((await call(url, 'GET', '/metrics')).text).toContain('process_cpu_seconds_total');
    });

    it('13.1 internal servers listen on INTERNAL_HOST only', async () => {
      expect(await portOpen('127.0.0.1', service.port)).toBe(true);
      for (const address of otherLocalAddresses()) expect([address, await portOpen(address, service.port)]).toEqual([address, false]);
    });
  });

  it('14.1 users: the profile by email and by user_id is read by point reads (QUERY_AUDIT strict refuses any scan)', async () => {
    await bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email: 'point@example.com' }), {
      projectId,
      email: 'point@example.com',
      userId: 'u-point',
    });
    const byEmail = await waitFor(() => profile('Point@Example.com'), { what: 'the profile by email' });
    const byUserId = await call(url, 'GET', `/internal/projects/${projectId}/users/u-point`, {
      auth: await internalAuthorization('users'),
    });
    expect(byUserId.status).toBe(200);
    expect(byUserId.body).toEqual(byEmail);
    const unknown = await call(url, 'GET', `/internal/projects/${projectId}/users/u-nobody`, {
      auth: await internalAuthorization('users'),
    });
    expect(unknown.status).toBe(404);
  });

  it('when a create arrives, then the user is stored and user.created is emitted with an id derived from the command', async () => {
    const id = await bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email: 'ann@example.com' }), {
      projectId,
      email: 'ann@example.com',
      userId: 'u-ann',
      fields: { name: 'Ann', age: 41, plan: 'pro' },
    });
    const user = await waitFor(() => profile('ann@example.com'), { what: 'the user' });
    expect(user).toMatchObject({
      email: 'ann@example.com',
      user_id: 'u-ann',
      name: 'Ann',
      age: 41,
      fields: { plan: 'pro' },
      subscription: { status: 'subscribed' },
    });
    const created = await waitFor(() => events.messages.find((m) => m.headers['ce_id'] === `${id}.created`), { what: 'user.created' });
    expect(created.headers['ce_type']).toBe('user.created');
    expect(created.value).toMatchObject({ projectId, email: 'ann@example.com', userId: 'u-ann' });
  });

  it('when the first trigger for an unknown email arrives, then it registers the user with what the trigger said', async () => {
    const id = await bus.publisher.publish(
      Topics.EmailCommands,
      'email.trigger',
      userOrderingKey(projectId, { email: 'first-mail@example.com' }),
      {
        messageId: 'msg_first',
        projectId,
        emailId: 'e1',
        emailKey: 'welcome',
        templateId: 't1',
        templateVersion: 1,
        user: { email: 'first-mail@example.com', user_id: 'u-first', name: 'First', plan: 'trial' },
        data: { code: 'x' },
        acceptedAt: now(),
      },
    );
    const user = await waitFor(() => profile('first-mail@example.com'), { what: 'the implicitly registered user' });
    expect(user).toMatchObject({ user_id: 'u-first', name: 'First', fields: { plan: 'trial' } });
    await waitFor(() => events.messages.find((m) => m.headers['ce_id'] === `${id}.created`), { what: 'user.created for the trigger' });
  });

  it('when a batch send names an unknown email (its own lane), then it registers the user all the same', async () => {
    await bus.publisher.publish(Topics.EmailBulk, 'email.bulk_trigger', userOrderingKey(projectId, { email: 'batched@example.com' }), {
      messageId: 'msg_batched',
      projectId,
      emailId: 'e1',
      emailKey: 'welcome',
      templateId: 't1',
      templateVersion: 1,
      user: { email: 'batched@example.com', user_id: 'u-batched', name: 'Batched' },
      data: {},
      acceptedAt: now(),
    });
    const user = await waitFor(() => profile('batched@example.com'), { what: 'the user a batch registered' });
    expect(user).toMatchObject({ user_id: 'u-batched', name: 'Batched' });
  });

  it('when the same create is delivered twice, then there is still one user', async () => {
    const data = { projectId, email: 'twice@example.com', fields: { plan: 'basic' } };
    const key = userOrderingKey(projectId, { email: 'twice@example.com' });
    await bus.publisher.publish(Topics.UserCommands, 'user.create', key, data, { id: 'same-command-id' });
    await bus.publisher.publish(Topics.UserCommands, 'user.create', key, data, { id: 'same-command-id' });
    await waitFor(() => profile('twice@example.com'));
    await waitFor(() => events.messages.filter((m) => m.headers['ce_id'] === 'same-command-id.created').length >= 1);
    const byUserId = await call(url, 'GET', `/internal/projects/${projectId}/users?email=twice@example.com`, {
      auth: await internalAuthorization('users'),
    });
    expect(byUserId.status).toBe(200);
  });

  it('when hundreds of creates arrive at once, then each is stored once with one user.created, duplicates within the burst merged', async () => {
    const emails = Array.from({ length: 300 }, (_, i) => `burst-${i}@example.com`);
    const sends = emails.map((email, i) =>
      bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email }), {
        projectId,
        email,
        fields: { n: i },
      }),
    );
    // the same email again in the same burst, with a field the first create did not carry
    sends.push(
      bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email: emails[7]! }), {
        projectId,
        email: emails[7]!,
        fields: { again: true },
      }),
    );
    const ids = await Promise.all(sends);
    await waitFor(() => ids.slice(0, 300).every((id) => events.messages.some((m) => m.headers['ce_id'] === `${id}.created`)), {
      timeoutMs: 30_000,
      what: '300 user.created events',
    });
    const db = await connectDb({ url: defaultMongoUrl(), dbName });
    try {
      expect(await db.collection('users').countDocuments({ projectId, email: { $regex: '^burst-' } })).toBe(300);
    } finally {
      await db.close();
    }
    const merged = await waitFor(
      async () => {
        const p = await profile(emails[7]!);
        return p?.fields?.again ? p : undefined;
      },
      { what: 'the repeated create merged' },
    );
    expect(merged.fields).toEqual({ n: 7, again: true });
    expect(events.messages.filter((m) => m.headers['ce_id'] === `${ids[300]}.created`)).toHaveLength(0);
  });

  it('when a create is redelivered after the user was stored but before its event went out, then user.created is emitted', async () => {
    const db = await connectDb({ url: defaultMongoUrl(), dbName });
    try {
      const now = new Date();
      await db.collection('users').insertOne({
        projectId,
        email: 'crashed@example.com',
        userId: null,
        uidKey: 'email:crashed@example.com',
        name: null,
        country: null,
        language: null,
        gender: null,
        age: null,
        fields: {},
        unsubscribedAt: null,
        unsubscribeReason: null,
        createdBy: 'cmd-before-crash',
        createdAt: now,
        updatedAt: now,
      });
    } finally {
      await db.close();
    }
    await bus.publisher.publish(
      Topics.UserCommands,
      'user.create',
      userOrderingKey(projectId, { email: 'crashed@example.com' }),
      { projectId, email: 'crashed@example.com' },
      { id: 'cmd-before-crash' },
    );
    const created = await waitFor(() => events.messages.find((m) => m.headers['ce_id'] === 'cmd-before-crash.created'), {
      what: 'the missing user.created',
    });
    expect(created.value).toMatchObject({ email: 'crashed@example.com' });
    expect(events.messages.filter((m) => m.headers['ce_id'] === 'cmd-before-crash.updated')).toHaveLength(0);
  });

  it('when updates by email and by user_id for one user are handled at the same time, then none is lost', async () => {
    const email = 'race@example.com';
    await bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email }), {
      projectId,
      email,
      userId: 'u-race',
    });
    await waitFor(() => profile(email));
    const updates = Array.from({ length: 10 }, (_, i) => [
      bus.publisher.publish(Topics.UserCommands, 'user.update', userOrderingKey(projectId, { email }), {
        projectId,
        user: { email },
        fields: { [`by_email_${i}`]: i },
        acceptedAt: now(),
      }),
      bus.publisher.publish(Topics.UserCommands, 'user.update', userOrderingKey(projectId, { userId: 'u-race' }), {
        projectId,
        user: { userId: 'u-race' },
        fields: { [`by_uid_${i}`]: i },
        acceptedAt: now(),
      }),
    ]).flat();
    await Promise.all(updates);
    const user = await waitFor(
      async () => {
        const p = await profile(email);
        return p && Object.keys(p.fields).length === 20 ? p : undefined;
      },
      { timeoutMs: 20_000, what: 'all 20 fields' },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}; stored: ${JSON.stringify((await profile(email))?.fields)}`);
    });
    expect(user.fields).toMatchObject({ by_email_9: 9, by_uid_9: 9 });
  });

  it('when an update by user_id arrives before its create, then it waits and is applied after the create', async () => {
    await bus.publisher.publish(Topics.UserCommands, 'user.update', userOrderingKey(projectId, { userId: 'u-late' }), {
      projectId,
      user: { userId: 'u-late' },
      fields: { plan: 'gold', name: 'Late' },
      acceptedAt: now(),
    });
    await new Promise((r) => setTimeout(r, 300));
    await bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email: 'late@example.com' }), {
      projectId,
      email: 'late@example.com',
      userId: 'u-late',
    });
    const user = await waitFor(
      async () => {
        const p = await profile('late@example.com');
        return p?.fields?.plan === 'gold' ? p : undefined;
      },
      { what: 'the parked update to be applied' },
    );
    expect(user).toMatchObject({ name: 'Late', user_id: 'u-late' });
  });

  it('when an update finds no user within the retry window, then user.update_rejected is emitted', async () => {
    const id = await bus.publisher.publish(Topics.UserCommands, 'user.update', userOrderingKey(projectId, { email: 'ghost@example.com' }), {
      projectId,
      user: { email: 'ghost@example.com' },
      fields: { plan: 'x' },
      acceptedAt: now(),
    });
    const rejected = await waitFor(() => events.messages.find((m) => m.headers['ce_id'] === `${id}.rejected`), {
      timeoutMs: RETRY_WINDOW_MS + 10_000,
      what: 'user.update_rejected',
    });
    expect(rejected.headers['ce_type']).toBe('user.update_rejected');
    expect(rejected.value).toMatchObject({
      projectId,
      user: { email: 'ghost@example.com' },
      reason: 'user_not_found',
      command: 'user.update',
    });
    expect(await profile('ghost@example.com')).toBeUndefined();
  });

  it('when a second user claims a taken user_id, then that change is rejected and the first user keeps it', async () => {
    const id = await bus.publisher.publish(
      Topics.UserCommands,
      'user.create',
      userOrderingKey(projectId, { email: 'copycat@example.com' }),
      {
        projectId,
        email: 'copycat@example.com',
        userId: 'u-ann',
      },
    );
    const rejected = await waitFor(() => events.messages.find((m) => m.headers['ce_id'] === `${id}.rejected`), { what: 'rejection' });
    expect(rejected.value).toMatchObject({ reason: 'user_id_taken' });
    expect(await waitFor(() => profile('copycat@example.com'))).toMatchObject({ user_id: null });
    expect(await profile('ann@example.com')).toMatchObject({ user_id: 'u-ann' });
  });

  it('when a message breaks the contract, then it goes to the DLQ with its reason and the next one is still handled', async () => {
    const topic = bus.resolveTopic(Topics.UserCommands);
    await bus.publisher.publishRaw(topic, `${projectId}:poison`, Buffer.from('{"projectId": 42}'), {
      ce_specversion: '1.0',
      ce_id: 'poison-1',
      ce_type: 'user.create',
      ce_source: 'test',
      ce_time: now(),
    });
    await bus.publisher.publish(Topics.UserCommands, 'user.create', `${projectId}:poison`, {
      projectId,
      email: 'after-poison@example.com',
    });
    const dead = await waitFor(() => events.messages.find((m) => m.headers['ce_id'] === 'poison-1'), {
      what: 'the poison message in the DLQ',
    });
    expect(dead.topic).toBe(dlqOf(topic));
    expect(dead.headers['dlq_reason']).toMatch(/invalid user.create/);
    await waitFor(() => profile('after-poison@example.com'), { what: 'the message after the poison one' });
  });

  it('when an unsubscribe arrives, then the profile shows it with its reason and user.unsubscribed is emitted', async () => {
    const acceptedAt = now();
    await bus.publisher.publish(Topics.UserCommands, 'user.unsubscribe', userOrderingKey(projectId, { email: 'ann@example.com' }), {
      projectId,
      user: { email: 'ann@example.com' },
      reason: 'too many mails',
      acceptedAt,
    });
    const user = await waitFor(async () => {
      const p = await profile('ann@example.com');
      return p?.subscription.status === 'unsubscribed' ? p : undefined;
    });
    expect(user.subscription).toEqual({ status: 'unsubscribed', unsubscribed_at: acceptedAt, reason: 'too many mails' });
    await waitFor(() => events.ofType('user.unsubscribed').find((m) => (m.value as { email: string }).email === 'ann@example.com'));
  });

  it('when a resubscribe older than the unsubscribe arrives, then the unsubscribe stays; a newer one subscribes the user again', async () => {
    const ann = userOrderingKey(projectId, { email: 'ann@example.com' });
    const unsubscribedAt = (await profile('ann@example.com'))?.subscription.unsubscribed_at as string;
    const resubscribe = (acceptedAt: string) =>
      bus.publisher.publish(Topics.UserCommands, 'user.resubscribe', ann, { projectId, user: { email: 'ann@example.com' }, acceptedAt });
    await resubscribe(new Date(Date.parse(unsubscribedAt) - 60_000).toISOString());
    // An update published after it is handled after it (one partition per user): then the stale resubscribe was read.
    await bus.publisher.publish(Topics.UserCommands, 'user.update', ann, {
      projectId,
      user: { email: 'ann@example.com' },
      fields: { resubscribe_probe: 'stale' },
      acceptedAt: now(),
    });
    const read = await waitFor(async () => {
      const p = await profile('ann@example.com');
      return p?.fields?.resubscribe_probe === 'stale' ? p : undefined;
    });
    expect(read.subscription.status).toBe('unsubscribed');

    await resubscribe(now());
    const user = await waitFor(async () => {
      const p = await profile('ann@example.com');
      return p?.subscription.status === 'subscribed' ? p : undefined;
    });
    expect(user.subscription).toEqual({ status: 'subscribed', unsubscribed_at: null, reason: null });
  });

  it('when an erasure is scheduled and then executed, then the profile shows it, the user and their parked commands go, and it is confirmed', async () => {
    const email = 'erase-me@example.com';
    await bus.publisher.publish(Topics.UserCommands, 'user.create', userOrderingKey(projectId, { email }), { projectId, email });
    const before = await waitFor(() => profile(email), { what: 'the user to erase' });
    expect(before.erasure).toBeNull();
    // A command waiting for the user under the user_id the erase request named (acceptedAt ahead, so the sweep keeps it).
    const db = await connectDb({ url: defaultMongoUrl(), dbName });
    const parked = db.collection<{ _id: string }>('parked_commands');
    try {
      await new UserRepository(userModels(db)).park({
        commandId: 'parked-for-erased',
        projectId,
        ref: 'uid:u-erase-me',
        type: 'user.update',
        data: {
          projectId,
          user: { userId: 'u-erase-me' },
          fields: { plan: 'x' },
          acceptedAt: new Date(Date.now() + 600_000).toISOString(),
        },
        requestId: null,
        acceptedAt: new Date(Date.now() + 600_000),
      });

      const subject = {
        erasureId: `era_${randomBytes(16).toString('hex')}`,
        projectId,
        id: before.id,
        email,
        userId: 'u-erase-me',
        // After the parked command's time (it sits in the future so that the sweep does not reject it first).
        before: new Date(Date.now() + 3_600_000).toISOString(),
      };
      const eraseAt = new Date(Date.now() + 60_000).toISOString();
      await bus.publisher.publish(Topics.ErasureEvents, 'user.erasure_scheduled', userOrderingKey(projectId, { email }), {
        ...subject,
        requestedAt: now(),
        eraseAt,
      });
      const queued = await waitFor(async () => (await profile(email))?.erasure ?? undefined, { what: 'the erasure on the profile' });
      expect(queued).toEqual({ id: subject.erasureId, erase_at: eraseAt });

      const execute = erasureRuns(events, subject, (data) =>
        bus.publisher.publish(Topics.ErasureEvents, 'erasure.execute', subject.erasureId, data),
      );
      const confirmed = await execute();
      const erased = { users: 1, parked_commands: 1 };
      expect(confirmed.value).toEqual({ erasureId: subject.erasureId, projectId, service: 'users', erased });
      expect(await profile(email)).toBeUndefined();
      expect(await parked.countDocuments({ _id: 'parked-for-erased' })).toBe(0);

      // The command comes again until every service has confirmed: nothing is left to erase.
      const again = await execute();
      expect(again.value).toMatchObject({ service: 'users', erased: { users: 0, parked_commands: 0 } });
    } finally {
      await db.close();
    }

    // A later trigger for the same address registers a new user.
    await bus.publisher.publish(Topics.EmailCommands, 'email.trigger', userOrderingKey(projectId, { email }), {
      messageId: 'msg_after_erasure',
      projectId,
      emailId: 'e1',
      emailKey: 'welcome',
      templateId: 't1',
      templateVersion: 1,
      user: { email },
      data: {},
      acceptedAt: now(),
    });
    const fresh = await waitFor(() => profile(email), { what: 'the user registered again' });
    expect(fresh.id).not.toBe(before.id);
    expect(fresh.erasure).toBeNull();
  });
});
