/** @postbus-system shared */
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Response } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { call, freePort, sleep, waitFor } from '@postbus/testing';
import { chromiumPath } from './browser';
import { createClientAndProject, sharedSystem, type DemoClient, type RunningSystem } from './system';
import { startReceiver } from './webhook-receiver';

/**
 * A page on another origin that, as soon as it loads, submits a form to the webhook's test route
 * and fetches its rotate-secret route with the browser's credentials: what a malicious site does
 * to a visitor whose browser holds Postbus credentials. The form opens a new window: a top-level
 * request, to which Chromium attaches the HTTP credentials it holds for the gateway (its HTTP auth
 * cache is partitioned by top-level site, so a frame would get none) and for which it answers a
 * Basic challenge with stored ones.
 */
const attackPage = (gateway: string, webhookId: string): string => `<!doctype html>
<html><head><title>cute cats</title></head><body>
<form id="attack" method="POST" action="${gateway}/v1/webhooks/${webhookId}/test" target="_blank"></form>
<script>
  fetch('${gateway}/v1/webhooks/${webhookId}/rotate-secret', { method: 'POST', credentials: 'include', mode: 'no-cors' })
    .finally(() => { document.title += ' fetched'; });
  document.getElementById('attack').submit();
</script>
</body></html>`;

describe('credentials sent by a browser from another site are refused (issue 30)', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let browser: Browser;
  let evil: Server;
  let evilPort: number;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let webhook: { id: string; secret: string };

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    receiver = await startReceiver();
    const created = await call(system.gatewayUrl, 'POST', '/v1/webhooks', {
      auth: client.auth,
      json: { url: receiver.url, events: ['message.sent'] },
    });
    expect(created.status).toBe(201);
    webhook = { id: created.body.id as string, secret: created.body.secret as string };
    evilPort = await freePort();
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackPage(system.gatewayUrl, webhook.id));
    });
    await new Promise<void>((resolve) => evil.listen(evilPort, '127.0.0.1', resolve));
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (evil ? evil.close(resolve) : resolve(undefined)));
    await receiver?.close();
  });

  interface Answer {
    path: string;
    status: number;
    /** Empty for the fetch (mode no-cors): Chromium reports its status only. */
    headers: Record<string, string>;
    body: string;
    navigation: boolean;
  }

  /**
   * Opens the attack page in the context and returns what the gateway answered to the requests it
   * made (Chromium reports the answers even where the page may not read them).
   */
  async function attackFrom(context: BrowserContext, pageOrigin: string): Promise<Answer[]> {
    const answers: Array<Promise<Answer>> = [];
    const record = async (response: Response): Promise<Answer> => ({
      path: new URL(response.url()).pathname,
      status: response.status(),
      headers: await response.allHeaders(),
      body: await response.text().catch(() => ''),
      navigation: response.request().isNavigationRequest(),
    });
    context.on('response', (response) => {
      if (response.url().startsWith(`${system.gatewayUrl}/v1/webhooks/`)) answers.push(record(response));
    });
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/cats`);
    await waitFor(async () => (await page.title()).endsWith('fetched') && (await Promise.all(answers)).some((a) => a.navigation), {
      what: 'both requests of the attack page answered',
    });
    // Time for the browser to repeat a request with credentials after a challenge.
    await sleep(500);
    const settled = await Promise.all(answers);
    for (const other of context.pages()) await other.close();
    return settled;
  }

  const expectRefused = (answers: Answer[], status: number) => {
    expect([...new Set(answers.map((a) => a.path))].sort()).toEqual([
      `/v1/webhooks/${webhook.id}/rotate-secret`,
      `/v1/webhooks/${webhook.id}/test`,
    ]);
    expect(answers.map((a) => [a.path, a.status])).toEqual(answers.map((a) => [a.path, status]));
    for (const answer of answers.filter((a) => a.navigation)) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      // Never a challenge that makes the browser offer the credentials it stored.
      expect(answer.headers['www-authenticate'] ?? '').not.toMatch(/^Basic/);
    }
  };

  it('a browser that sends the API key it stored (Basic) with requests another site starts: both are a 403 naming why', async () => {
    const context = await browser.newContext();
    try {
      // What a browser holding the key does (it cached it from a Basic dialog, or from a URL with
      // credentials): the gateway sees the browser's own Origin and Sec-Fetch-Site beside it.
      await context.route(`${system.gatewayUrl}/**`, (route) =>
        route.continue({ headers: { ...route.request().headers(), authorization: client.auth } }),
      );
      // Another host (localhost, not 127.0.0.1): Sec-Fetch-Site says cross-site.
      const answers = await attackFrom(context, `http://localhost:${evilPort}`);
      expectRefused(answers, 403);
      const test = answers.find((a) => a.navigation)!;
      expect(JSON.parse(test.body)).toMatchObject({
        type: '/problems/cross-site-request',
        status: 403,
        detail: expect.stringMatching(/another site/),
      });
      // The same host on another port is another origin too (a sibling app): same-site, still refused.
      expectRefused(await attackFrom(context, `http://127.0.0.1:${evilPort}`), 403);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a browser that offers stored credentials when challenged: the gateway challenges with Bearer, so it offers none (401)', async () => {
    const context = await browser.newContext({ httpCredentials: { username: client.clientId, password: client.apiKey } });
    try {
      const answers = await attackFrom(context, `http://localhost:${evilPort}`);
      expectRefused(answers, 401);
      for (const answer of answers.filter((a) => a.navigation)) expect(answer.headers['www-authenticate']).toBe('Bearer realm="postbus"');
    } finally {
      await context.close();
    }
  }, 60_000);

  it("the admin panel's session cookie, which SameSite lets through from the same host on another port, is refused too", async () => {
    const opened = await call(system.gatewayUrl, 'POST', '/v1/auth/session/cookie', { auth: client.auth });
    expect(opened.status).toBe(201);
    const [name, value] = (opened.headers.get('set-cookie') ?? '').split(';')[0]!.split('=') as [string, string];
    const context = await browser.newContext();
    try {
      await context.addCookies([{ name, value, url: system.gatewayUrl, httpOnly: true, sameSite: 'Strict' }]);
      expectRefused(await attackFrom(context, `http://127.0.0.1:${evilPort}`), 403);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('after all of it nothing happened: no test delivery, and the secret is the one made at creation', async () => {
    await sleep(1000);
    const deliveries = await call(system.gatewayUrl, 'GET', `/v1/webhooks/${webhook.id}/deliveries`, { auth: client.auth });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toEqual([]);
    expect(receiver.received).toEqual([]);
    // The same request from a server (no Origin, no Sec-Fetch-*) passes; the delivery it sends is
    // signed by the original secret alone (after a rotation the old and the new secret both sign).
    const test = await call(system.gatewayUrl, 'POST', `/v1/webhooks/${webhook.id}/test`, { auth: client.auth });
    expect(test.status).toBe(202);
    const delivered = await waitFor(() => receiver.received[0], { what: 'the test delivery' });
    expect(delivered.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(webhook.secret).verify(delivered.body, delivered.headers)).toMatchObject({ type: 'webhook.test' });
  }, 60_000);
});
