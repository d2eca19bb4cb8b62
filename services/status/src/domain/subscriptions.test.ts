import { InMemorySubscriberStore } from '../../preview/in-memory-subscriber-store';
import { SubscriptionTokens } from './subscription-tokens';
import { Subscriptions, type SubscriptionsOptions } from './subscriptions';

const BASE = 'https://status.example.com';

/** The subscription rules over the in-memory store, a clock the test moves and confirmations it records. */
function subscriptionsWith(overrides: Partial<SubscriptionsOptions> = {}) {
  let now = Date.parse('2026-11-23T12:00:00Z');
  const subscribers = new InMemorySubscriberStore();
  const tokens = new SubscriptionTokens('a-test-secret-of-enough-length');
  const sent: Array<{ subscriberId: string; address: string; confirmUrl: string }> = [];
  const subscriptions = new Subscriptions({
    subscribers,
    baseUrl: BASE,
    tokens,
    confirmations: {
      sendsMail: true,
      sendConfirmation: (subscriberId, address, confirmUrl) => void sent.push({ subscriberId, address, confirmUrl }),
    },
    policy: undefined,
    now: () => now,
    ...overrides,
  });
  const tokenIn = (url: string) => decodeURIComponent(new URL(url).searchParams.get('token') ?? '');
  return { subscriptions, subscribers, tokens, sent, tokenIn, advance: (ms: number) => (now += ms) };
}

describe('status subscriptions', () => {
  it('an email subscription mails one confirmation, and none again within the resend time; the link confirms it', async () => {
    const { subscriptions, subscribers, sent, tokenIn, advance } = subscriptionsWith({ limits: { confirmationResendMs: 60_000 } });
    await subscriptions.subscribeEmail('  Ada@Example.com ', '/email');
    await subscriptions.subscribeEmail('ada@example.com', '/email');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.address).toBe('ada@example.com');
    expect(sent[0]!.confirmUrl.startsWith(`${BASE}/subscriptions/confirm?token=`)).toBe(true);
    expect(await subscribers.listConfirmed()).toEqual([]);

    const token = tokenIn(sent[0]!.confirmUrl);
    expect(subscriptions.verifyLink(token, 'confirm')).toBe(sent[0]!.subscriberId);
    expect(subscriptions.verifyLink(token, 'unsubscribe')).toBeUndefined();
    await expect(subscriptions.confirm(token)).resolves.toBe(true);
    expect((await subscribers.listConfirmed()).map((s) => s.address)).toEqual(['ada@example.com']);

    advance(120_000);
    await subscriptions.subscribeEmail('ada@example.com', '/email');
    expect(sent).toHaveLength(1); // confirmed already: nothing is mailed
  });

  it('refuses what is not an email address (naming the field), and email altogether without a mailer', async () => {
    const { subscriptions } = subscriptionsWith();
    await expect(subscriptions.subscribeEmail('not-an-address', '/subscriber/email')).rejects.toMatchObject({
      status: 400,
      errors: [{ pointer: '/subscriber/email', message: 'is not an email address' }],
    });
    const { subscriptions: withoutMail } = subscriptionsWith({ confirmations: { sendsMail: false, sendConfirmation: () => undefined } });
    await expect(withoutMail.subscribeEmail('ada@example.com', '/email')).rejects.toMatchObject({
      status: 503,
      slug: 'email-subscriptions-unavailable',
    });
  });

  it('a confirm link works no longer than an unconfirmed subscriber is kept, and the sweep removes those past their time', async () => {
    const { subscriptions, subscribers, sent, tokenIn, advance } = subscriptionsWith({ limits: { unconfirmedTtlMs: 60_000 } });
    await subscriptions.subscribeEmail('late@example.com', '/email');
    await subscriptions.subscribeEmail('never@example.com', '/email');
    advance(61_000);
    await expect(subscriptions.confirm(tokenIn(sent[0]!.confirmUrl))).resolves.toBe(false);
    expect(await subscribers.listConfirmed()).toEqual([]);
    await subscriptions.subscribeEmail('fresh@example.com', '/email');
    await expect(subscriptions.removeExpired()).resolves.toBe(2);
    expect(await subscribers.count()).toBe(1);
    await expect(subscriptions.confirm(tokenIn(sent[2]!.confirmUrl))).resolves.toBe(true);
    await subscribers.remove((await subscribers.listConfirmed())[0]!.id);
    expect(await subscribers.count()).toBe(0);
    expect(subscriptions.defaultSweepIntervalMs()).toBe(15_000);
  });

  it('a webhook gets its secret once; a second subscribe of the same URL is a conflict, and the unsubscribe link removes it', async () => {
    const { subscriptions, subscribers } = subscriptionsWith();
    const created = await subscriptions.subscribeWebhook('https://hooks.example.com/status', '/webhook');
    expect(created).toMatchObject({ webhook: 'https://hooks.example.com/status', secret: expect.stringMatching(/^whsec_/) as unknown });
    expect(created.unsubscribe_url).toBe(subscriptions.unsubscribeUrl(created));
    await expect(subscriptions.subscribeWebhook('https://hooks.example.com/status', '/webhook')).rejects.toMatchObject({
      status: 409,
      slug: 'already-subscribed',
    });
    await expect(subscriptions.subscribeWebhook('ftp://hooks.example.com/', '/webhook')).rejects.toMatchObject({ status: 400 });
    const token = new URL(created.unsubscribe_url).searchParams.get('token') ?? '';
    await expect(subscriptions.unsubscribe('forged.token')).resolves.toBe(false);
    await expect(subscriptions.unsubscribe(token)).resolves.toBe(true);
    expect(await subscribers.count()).toBe(0);
  });

  it('a full list refuses new subscribers, whoever asks', async () => {
    const { subscriptions } = subscriptionsWith({ limits: { maxSubscribers: 1 } });
    await subscriptions.subscribeWebhook('https://one.example.com/', '/webhook');
    await expect(subscriptions.subscribeEmail('ada@example.com', '/email')).rejects.toMatchObject({
      status: 409,
      slug: 'subscriptions-full',
    });
  });

  it('counts subscription requests per client address and for everyone, saying when to retry', () => {
    const { subscriptions, advance } = subscriptionsWith({ limits: { perClient: 2, global: 3, windowMs: 60_000 } });
    expect(subscriptions.overRate('198.51.100.1')).toBeUndefined();
    expect(subscriptions.overRate('198.51.100.1')).toBeUndefined();
    const mine = subscriptions.overRate('198.51.100.1');
    expect(mine?.message).toBe('An address may subscribe 2 times in 1 min; retry after 30 s.');
    expect(subscriptions.overRate('198.51.100.2')).toBeUndefined();
    expect(subscriptions.overRate('198.51.100.3')?.message).toMatch(/^This page takes 3 subscriptions in 1 min from everyone together/);
    advance(60_000);
    expect(subscriptions.overRate('198.51.100.1')).toBeUndefined();
  });
});
