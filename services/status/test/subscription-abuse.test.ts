import { randomBytes } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SecretBox } from '@postbus/crypto';
import { connectDb, type Connection } from '@postbus/db';
import { defaultMongoUrl, sleep, startSmtpSink, uniqueName, waitFor, type SmtpSink } from '@postbus/testing';
import { statusPublishing, type Publishing, type PublishingOptions } from '../src/start/publishing';
import { buildSnapshot, FakeStatusSource, openIncident, PREVIEW_NOW } from '../preview/scenarios';
import { MongoSubscriberStore } from '../src/model/subscriber.repository';

/**
 * The public subscription endpoints against what abuses them: floods from one address or many, a
 * full list, a mailbox subscribed over and over, webhooks aimed at other services' ports or inside
 * the network, subscribers that never confirm. A real HTTP server, the subscribers in the
 * MongoDB-wire server, mails counted at the SMTP sink.
 */

/** Resolves names from a table, as dns.lookup with `all: true` would. */
const fakeDns = (table: Record<string, string>): typeof dnsLookup =>
  ((hostname: string, _options: object, callback: (...args: unknown[]) => void) => {
    const address = table[hostname];
    if (!address) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    else callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  }) as unknown as typeof dnsLookup;

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

describe('status subscriptions under abuse', () => {
  let sink: SmtpSink;
  const databases: Connection[] = [];
  const servers: Array<{ router: Publishing; server: Server }> = [];
  const source = new FakeStatusSource(buildSnapshot({ history: true }));

  beforeAll(async () => {
    sink = await startSmtpSink();
  });

  afterEach(async () => {
    for (const { router, server } of servers.splice(0)) {
      await router.stop();
      await new Promise((r) => server.close(r));
    }
    for (const db of databases.splice(0)) {
      await db.dropDatabase();
      await db.close();
    }
  });

  afterAll(async () => {
    await sink.process.stop();
  });

  const newStore = async () => {
    const db = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('status-abuse').replace(/-/g, '_') });
    databases.push(db);
    return { db, store: new MongoSubscriberStore(db, new SecretBox(randomBytes(32).toString('base64'))) };
  };

  /** The public router on a server of its own that believes X-Forwarded-For from loopback (a proxy in front). */
  const serve = async (store: MongoSubscriberStore, options: Partial<PublishingOptions> = {}) => {
    const app = express();
    app.set('trust proxy', 'loopback');
    const server = http.createServer(app);
    const url = await listen(server);
    const router = statusPublishing(source, {
      baseUrl: url,
      subscribers: store,
      tokenSecret: 'a-test-secret-of-enough-length',
      smtpUrl: sink.smtpUrl,
      mailFrom: 'status@postbus.example',
      ...options,
    });
    app.use(router);
    servers.push({ router, server });
    const subscribe = (body: unknown, client = '198.51.100.1') =>
      fetch(`${url}/api/v2/subscribers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body: JSON.stringify(body),
      });
    const form = (email: string, client = '198.51.100.1') =>
      fetch(`${url}/subscribe`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
        body: `email=${encodeURIComponent(email)}`,
      });
    return { url, router, subscribe, form };
  };

  const mailsTo = async (address: string) => (await sink.client.search(`to:${address}`)).messages;
  const address = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.com`;

  describe('rate limits', () => {
    it('when one client address subscribes more often than its limit, the next request is a 429 problem with Retry-After and sends no mail; another address is still served', async () => {
      const { store } = await newStore();
      const page = await serve(store, { limits: { perClient: 2, global: 100, windowMs: 60_000 } });
      const [first, second, third] = [address('first'), address('second'), address('third')];
      expect((await page.subscribe({ email: first })).status).toBe(202);
      expect((await page.subscribe({ email: second })).status).toBe(202);

      const refused = await page.subscribe({ email: third });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      // 2 a minute: the next in 30 s (less what the requests took)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(28);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(30);
      expect(await refused.json()).toMatchObject({
        type: '/problems/rate-limited',
        status: 429,
        detail: expect.stringMatching(/An address may subscribe 2 times in 1 min/),
      });
      // Every kind of subscription counts, and the HTML form says so in a page.
      expect((await page.subscribe({ webhook: 'https://8.8.8.8/hook' })).status).toBe(429);
      const formRefused = await page.form(third);
      expect(formRefused.status).toBe(429);
      expect(formRefused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await formRefused.text()).toContain('Too many subscriptions');

      // Another client is served.
      const fourth = address('fourth');
      expect((await page.subscribe({ email: fourth }, '198.51.100.2')).status).toBe(202);
      await page.router.idle();
      expect(await mailsTo(third)).toEqual([]);
      expect(await store.count()).toBe(3);
    });

    it('when an IPv6 client changes address within its /64, it is still the same client', async () => {
      const { store } = await newStore();
      const page = await serve(store, { limits: { perClient: 2, global: 100, windowMs: 60_000 } });
      expect((await page.subscribe({ email: address('a') }, '2001:db8:7:7::1')).status).toBe(202);
      expect((await page.subscribe({ email: address('b') }, '2001:db8:7:7:ffff::2')).status).toBe(202);
      expect((await page.subscribe({ email: address('c') }, '2001:db8:7:7:1234:5678:9abc:def0')).status).toBe(429);
      expect((await page.subscribe({ email: address('d') }, '2001:db8:7:8::1')).status).toBe(202);
    });

    it('when everyone together reaches the global limit, a new client is refused with 429 as well', async () => {
      const { store } = await newStore();
      const page = await serve(store, { limits: { perClient: 10, global: 3, windowMs: 60_000 } });
      for (const client of ['198.51.100.11', '198.51.100.12', '198.51.100.13'])
        expect((await page.subscribe({ email: address('x') }, client)).status).toBe(202);
      const refused = await page.subscribe({ email: address('x') }, '198.51.100.14');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(18);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(20);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/from everyone together/);
    });
  });

  describe('the size of the list', () => {
    it('when the list holds as many subscribers as it keeps, any subscription is a 409 problem, a repeat of an address on it too, until one leaves', async () => {
      const { store } = await newStore();
      const page = await serve(store, { limits: { maxSubscribers: 2 } });
      const kept = address('kept');
      expect((await page.subscribe({ email: kept })).status).toBe(202);
      const hook = await page.subscribe({ webhook: 'https://93.184.216.34/status' });
      expect(hook.status).toBe(201);

      for (const body of [{ email: address('new') }, { email: kept }, { webhook: 'https://93.184.216.34/other' }]) {
        const full = await page.subscribe(body, '198.51.100.7');
        expect(full.status).toBe(409);
        expect(full.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await full.json()).toMatchObject({ type: '/problems/subscriptions-full', status: 409 });
      }
      const formFull = await page.form(address('form'), '198.51.100.8');
      expect(formFull.status).toBe(409);
      expect(await store.count()).toBe(2);

      await store.remove(((await hook.json()) as { id: string }).id);
      expect((await page.subscribe({ email: address('later') }, '198.51.100.9')).status).toBe(202);
    });
  });

  describe('confirmation mails', () => {
    it('when an address is subscribed again within the resend window, through this instance or another (a restart), no second mail goes out and the answer is the same; after the window one more does', async () => {
      const { store } = await newStore();
      const limits = { confirmationResendMs: 5_000 };
      const [one, two] = [await serve(store, { limits }), await serve(store, { limits })];
      const target = address('target');

      const answers = [await one.subscribe({ email: target }, '198.51.100.21')];
      await waitFor(async () => (await mailsTo(target)).length === 1, { what: 'the first confirmation mail' });
      answers.push(await two.subscribe({ email: target.toUpperCase() }, '198.51.100.22'));
      // At once, through both instances.
      answers.push(
        ...(await Promise.all([
          one.subscribe({ email: target }, '198.51.100.23'),
          two.subscribe({ subscriber: { email: target } }, '198.51.100.24'),
        ])),
      );
      const seen = await Promise.all(answers.map(async (r) => [r.status, r.headers.get('content-type'), await r.text()]));
      expect(new Set(seen.map((s) => JSON.stringify(s))).size).toBe(1);
      expect(seen[0]).toEqual([202, expect.stringMatching(/^application\/json/), '{"status":"confirmation_sent"}']);
      // A confirmed address gets the same answer, and no mail.
      const confirmed = address('confirmed');
      await store.add({ kind: 'email', address: confirmed, secret: null, confirmedAt: new Date() }, new Date());
      const forConfirmed = await two.subscribe({ email: confirmed }, '198.51.100.26');
      expect([forConfirmed.status, forConfirmed.headers.get('content-type'), await forConfirmed.text()]).toEqual(seen[0]);
      await Promise.all([one.router.idle(), two.router.idle()]);
      await sleep(300);
      expect(await mailsTo(target)).toHaveLength(1);
      expect(await mailsTo(confirmed)).toEqual([]);

      // Once the window has passed, a repeat mails again (the first may have been lost).
      await sleep(5_000);
      expect((await two.subscribe({ email: target }, '198.51.100.25')).status).toBe(202);
      await waitFor(async () => (await mailsTo(target)).length === 2, { what: 'the second confirmation mail' });
    });
  });

  describe('webhook subscribers', () => {
    const hooks = fakeDns({
      'hooks.example': '93.184.216.34',
      'compat.example': '::7f00:1',
      'nat64.example': '64:ff9b::a00:1',
      'mapped.example': '::ffff:169.254.169.254',
      'sixtofour.example': '2002:7f00:1::',
      'teredo.example': '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'metadata.example': 'fd00:ec2::254',
    });

    it('when a webhook names a port other than 80 or 443, it is refused with a 400 problem naming the field', async () => {
      const { store } = await newStore();
      const page = await serve(store, { webhookResolver: hooks, limits: { perClient: 100 } });
      for (const [body, pointer, port] of [
        [{ webhook: 'http://8.8.8.8:25/' }, '/webhook', 25],
        [{ webhook: 'https://hooks.example:8443/status' }, '/webhook', 8443],
        [{ webhook: 'http://hooks.example:6379/' }, '/webhook', 6379],
        [{ webhook: 'http://hooks.example:8080/' }, '/webhook', 8080],
        [{ subscriber: { endpoint: 'http://8.8.8.8:25/' } }, '/subscriber/endpoint', 25],
      ] as const) {
        const res = await page.subscribe(body);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        const problem = (await res.json()) as { type: string; errors: Array<{ pointer: string; message: string }> };
        expect(problem.type).toBe('/problems/validation-failed');
        expect(problem.errors).toEqual([
          { pointer, message: `port ${port} is not allowed: webhooks are sent to port 80 (http) or 443 (https) only` },
        ]);
      }
      expect(await store.count()).toBe(0);
      // The web's ports are fine, written or not.
      for (const webhook of [
        'https://hooks.example/status',
        'http://hooks.example:80/a',
        'https://hooks.example:443/b',
        'http://hooks.example:443/c',
      ])
        expect((await page.subscribe({ webhook })).status).toBe(201);
    });

    it('when a webhook names or resolves to an internal address in any encoding, it is refused with a 400 problem naming the field, and nothing is stored', async () => {
      const { store } = await newStore();
      // npm start's allow-list: local receivers on 9000-9099 admit none of these.
      const page = await serve(store, { webhookResolver: hooks, allowedWebhookHosts: ['127.0.0.1:9000-9099'], limits: { perClient: 100 } });
      const cases: Array<[string, RegExp]> = [
        ['http://[::127.0.0.1]/', /^::7f00:1 is an IPv4-compatible address of 127\.0\.0\.1, a loopback address, not a public address$/],
        ['http://[::127.0.0.1]:8025/', /IPv4-compatible address of 127\.0\.0\.1/],
        ['http://[::169.254.169.254]/', /IPv4-compatible address of 169\.254\.169\.254, a cloud metadata address/],
        ['http://2130706433/', /^127\.0\.0\.1 is a loopback address/],
        ['http://0x7f.1/', /^127\.0\.0\.1 is a loopback address/],
        ['http://0177.0.0.1/', /^127\.0\.0\.1 is a loopback address/],
        ['http://127.0.0.1:8025/', /^127\.0\.0\.1 is a loopback address/],
        ['http://[::ffff:7f00:1]/', /^127\.0\.0\.1 is a loopback address/],
        ['http://[64:ff9b::a9fe:a9fe]/', /NAT64 address of 169\.254\.169\.254, a cloud metadata address/],
        ['http://[64:ff9b:1::a00:1]/', /local-use NAT64 address/],
        ['http://[2002:a00:1::]/', /6to4 address of 10\.0\.0\.1, a private address/],
        ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /Teredo address/],
        ['http://169.254.169.254/latest/meta-data/', /cloud metadata address/],
        ['http://[fd00:ec2::254]/', /cloud metadata address/],
        ['http://10.1.2.3/', /private address/],
        ['http://compat.example/', /^compat\.example resolves to an IPv4-compatible address of a loopback address, not a public address$/],
        ['http://nat64.example/', /^nat64\.example resolves to a NAT64 address of a private address/],
        ['http://mapped.example/', /^mapped\.example resolves to a cloud metadata address/],
        ['http://sixtofour.example/', /^sixtofour\.example resolves to a 6to4 address of a loopback address/],
        ['http://teredo.example/', /^teredo\.example resolves to a Teredo address/],
        ['http://metadata.example/', /^metadata\.example resolves to a cloud metadata address/],
      ];
      for (const [webhook, message] of cases) {
        const res = await page.subscribe({ webhook });
        expect([webhook, res.status]).toEqual([webhook, 400]);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        const problem = (await res.json()) as { errors: Array<{ pointer: string; message: string }>; error: string };
        expect(problem.errors[0]).toEqual({ pointer: '/webhook', message: expect.stringMatching(message) });
        expect(problem.error).toMatch(/not a public address/);
      }
      expect(await store.count()).toBe(0);
    });

    it('when the operator admits a host (and port), a webhook on it is subscribed on those ports only', async () => {
      const { store } = await newStore();
      const page = await serve(store, { allowedWebhookHosts: ['127.0.0.1:9000-9099', 'localhost'], limits: { perClient: 100 } });
      expect((await page.subscribe({ webhook: 'http://127.0.0.1:9050/hook' })).status).toBe(201);
      expect((await page.subscribe({ webhook: 'http://localhost:3000/hook' })).status).toBe(201);
      const outside = await page.subscribe({ webhook: 'http://127.0.0.1:9100/hook' });
      expect(outside.status).toBe(400);
      expect(((await outside.json()) as { errors: Array<{ message: string }> }).errors.map((e) => e.message)).toEqual([
        '127.0.0.1 is a loopback address, not a public address',
        'port 9100 is not allowed: webhooks are sent to port 80 (http) or 443 (https) only',
      ]);
    });

    it('when a webhook was stored under laxer rules (an internal address written in the URL), it is not sent to; an admitted one is', async () => {
      const received: string[] = [];
      const receive = () =>
        http.createServer((req, res) => {
          received.push(String(req.url));
          req.resume();
          res.end();
        });
      const [admitted, other] = [receive(), receive()];
      const [admittedUrl, otherUrl] = [await listen(admitted), await listen(other)];
      try {
        const { store } = await newStore();
        const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
        await store.add({ kind: 'webhook', address: `${admittedUrl}/admitted`, secret: secret(), confirmedAt: new Date() }, new Date());
        await store.add({ kind: 'webhook', address: `${otherUrl}/stored-before`, secret: secret(), confirmedAt: new Date() }, new Date());
        const page = await serve(store, { allowedWebhookHosts: [`127.0.0.1:${new URL(admittedUrl).port}`] });
        const incident = openIncident(PREVIEW_NOW);
        source.emit({ kind: 'incident', incident, update: incident.updates[0]! });
        await page.router.idle();
        await waitFor(() => received.includes('/admitted'), { what: 'the admitted webhook' });
        await sleep(300);
        expect(received).toEqual(['/admitted']);
      } finally {
        await new Promise((r) => admitted.close(r));
        await new Promise((r) => other.close(r));
      }
    });
  });

  describe('unconfirmed subscribers', () => {
    it('when an email subscriber does not confirm in time, the service removes it and its link no longer confirms; confirmed subscribers stay', async () => {
      const { db, store } = await newStore();
      const page = await serve(store, { limits: { unconfirmedTtlMs: 4_000 }, sweepIntervalMs: 200 });
      const [late, prompt] = [address('late'), address('prompt')];
      expect((await page.subscribe({ email: late })).status).toBe(202);
      expect((await page.subscribe({ email: prompt })).status).toBe(202);
      expect((await page.subscribe({ webhook: 'https://93.184.216.34/stays' })).status).toBe(201);
      const linkOf = async (to: string) => {
        const [mail] = await waitFor(
          async () => {
            const found = await mailsTo(to);
            return found.length > 0 ? found : undefined;
          },
          { what: `the confirmation mail to ${to}` },
        );
        const text = (await sink.client.get(mail!.ID)).Text;
        return /http:\/\/127\.0\.0\.1:\d+\/subscriptions\/confirm\?token=[A-Za-z0-9_.%-]+/.exec(text)![0];
      };
      const [lateLink, promptLink] = [await linkOf(late), await linkOf(prompt)];
      expect((await fetch(promptLink, { method: 'POST' })).status).toBe(200);

      const rows = db.collection('status_subscribers');
      await waitFor(async () => (await rows.countDocuments({ address: late })) === 0, {
        timeoutMs: 10_000,
        what: 'the unconfirmed subscriber to be removed',
      });
      const confirmLate = await fetch(lateLink, { method: 'POST' });
      expect(confirmLate.status).toBe(400);
      expect(await confirmLate.text()).toContain('Link expired');
      expect((await store.list()).map((s) => [s.kind, s.confirmedAt !== null]).sort()).toEqual([
        ['email', true],
        ['webhook', true],
      ]);
    });
  });
});
