import { randomBytes } from 'node:crypto';
import { Bus, busOptions } from '@postbus/bus';
import { loadConfig } from '@postbus/config';
import { Topics, userOrderingKey, type ErasureExecuteCommand } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import {
  call,
  erasureRuns,
  inProcessEnv,
  internalAuthorization,
  recordTopics,
  shutDown,
  type TopicRecorder,
  uniqueDbName,
  uniqueName,
  waitFor,
} from '@postbus/testing';
import { start, type PaymentsService } from '../src/app';
import { PaymentsConfig } from '../src/config';

describe('payments service: erasure', () => {
  const namespace = uniqueName('t');
  const projectId = 'bbbbbbbbbbbbbbbbbbbbbbbb';
  const logger = createLogger({ service: 'payments-test', level: 'error' });
  let service: PaymentsService;
  let bus: Bus;
  let events: TopicRecorder;
  let url: string;

  beforeAll(async () => {
    const config = loadConfig(PaymentsConfig, inProcessEnv(namespace, { PAYMENTS_DB_NAME: uniqueDbName('payments') }));
    service = await start({ config, logger });
    url = `http://127.0.0.1:${service.port}`;
    bus = new Bus({ ...busOptions(config), service: 'test', logger });
    events = await recordTopics(namespace, [Topics.PaymentEvents, Topics.ErasureEvents]);
  });

  afterAll(() => shutDown(events, bus, service));

  const now = () => new Date().toISOString();
  const day = now().slice(0, 10);
  const pay = (user: { email?: string; userId?: string }, paymentId: string, amount: number) =>
    bus.publisher.publish(Topics.PaymentCommands, 'payment.record', userOrderingKey(projectId, user), {
      projectId,
      user,
      paymentId,
      amount,
      currency: 'EUR',
      paidAt: now(),
      description: 'Pro plan for Ada Lovelace',
      metadata: { invoice: 'INV-1' },
      acceptedAt: now(),
    });
  const list = async (query: string) =>
    (await call(url, 'GET', `/internal/projects/${projectId}/payments?${query}`, { auth: await internalAuthorization('payments') }))
      .body as {
      data: unknown[];
    };
  const revenue = async () =>
    (
      await call(url, 'GET', `/internal/projects/${projectId}/revenue?from=${day}&to=${day}`, {
        auth: await internalAuthorization('payments'),
      })
    ).body;

  it('when an erasure runs, then the payments lose everything personal but stay in the revenue, and it is confirmed', async () => {
    const email = 'ada@example.com';
    await bus.publisher.publish(Topics.UserEvents, 'user.created', userOrderingKey(projectId, { email }), {
      projectId,
      id: 'cccccccccccccccccccccccc',
      email,
      userId: 'u-ada',
    });
    await Promise.all([pay({ email }, 'p1', 1000), pay({ userId: 'u-ada' }, 'p2', 500)]);
    await waitFor(async () => ((await list(`email=${email}`)).data.length === 2 ? true : undefined), { what: 'the two payments' });
    const before = await revenue();

    // Named by the users service's id only: the service finds the email and the user_id itself.
    const subject: ErasureExecuteCommand = {
      erasureId: `era_${randomBytes(16).toString('hex')}`,
      projectId,
      id: 'cccccccccccccccccccccccc',
      email: null,
      userId: null,
      before: new Date(Date.now() + 60_000).toISOString(),
    };
    const execute = erasureRuns(events, subject, (data) =>
      bus.publisher.publish(Topics.ErasureEvents, 'erasure.execute', subject.erasureId, data),
    );
    const confirmed = await execute();
    const erased = { payments_anonymised: 2, known_users: 2 };
    expect(confirmed.value).toEqual({ erasureId: subject.erasureId, projectId, service: 'payments', erased });

    expect((await list(`email=${email}`)).data).toEqual([]);
    expect((await list('user_id=u-ada')).data).toEqual([]);
    const anonymised = (await list(`email=${encodeURIComponent(`erased:${subject.erasureId}`)}`)).data;
    expect(anonymised).toHaveLength(2);
    for (const p of anonymised) expect(p).toMatchObject({ user_id: null, description: null, metadata: {} });
    expect(await revenue()).toEqual(before);

    // Again (until every service has confirmed): nothing left, and the user is unknown now.
    const again = await execute({ ...subject, email, userId: 'u-ada' });
    expect(again.value).toMatchObject({ erased: { payments_anonymised: 0, known_users: 0 } });
  });
});
