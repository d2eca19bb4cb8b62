import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { call, waitFor } from '@postbus/testing';
import { openPanelBrowser, SCREENSHOTS } from './browser';
import { onPhone, scrollWidthOf, shotDark } from './panel-pages';
import { createClientAndProject, createSendableEmail, startSystem, type DemoClient, type RunningSystem } from './system';
import { startReceiver } from './webhook-receiver';

describe('the admin panel in a real browser, against the running system (issue 15)', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  let panel: string;

  beforeAll(async () => {
    // Two quick retries, then a delivery is failed (and can be retried by hand).
    system = await startSystem({ WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.2' });
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, {
      subject: 'Welcome, {{user.name}}',
      // A script in an email must never run in the panel: if it did, it would add this line. Its
      // inline style must apply.
      html: `<p style="color: rgb(190, 18, 60)">Hi {{user.name}}, your code is {{data.code}}.</p><script>document.body.insertAdjacentHTML('beforeend', '<p>script ran</p>')</script>`,
      text: 'Hi {{user.name}}, your code is {{data.code}} (text part).',
    });
    panel = `${system.gatewayUrl}/admin/`;
    ({ browser, page, cspViolations } = await openPanelBrowser());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, path, { auth: client.auth, ...(json !== undefined ? { json } : {}) });
  const shot = (name: string, fullPage = true) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });

  it('a wrong key shows an error in the sign-in form; the right one signs in', async () => {
    await page.goto(panel);
    await page.waitForURL('**/admin/sign-in');
    // A first visit is no ended session.
    await page.getByLabel('Client ID').waitFor();
    expect(await page.getByText('Your session has ended').count()).toBe(0);
    await page.getByLabel('Client ID').fill(client.clientId);
    await page.getByLabel('API key').fill('pb_full_not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The client ID or API key is not correct' }).waitFor();
    await shot('sign-in-wrong-key');

    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/admin/projects/${client.projectId}/users`);
    await page.getByRole('heading', { name: 'User profile' }).waitFor();
    // The session is an HttpOnly cookie: the page's scripts cannot read it.
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'postbus_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate('document.cookie')).not.toContain('postbus_session');
  }, 60_000);

  it('an email triggered through the API shows in the user profile, reaching sent with its timeline', async () => {
    const email = 'ada@example.com';
    const sent = await api('POST', `/v1/projects/${client.projectId}/emails/welcome/send`, {
      user: { email, user_id: 'u_ada', name: 'Ada Lovelace', country: 'GB', language: 'en', plan: 'pro' },
      data: { code: '4711' },
    });
    expect(sent.status).toBe(200);
    const paid = await api('POST', `/v1/projects/${client.projectId}/payments`, {
      email,
      payment_id: 'pay_1',
      amount: 1999,
      currency: 'EUR',
    });
    expect(paid.status).toBe(200);
    await waitFor(async () => (await api('GET', `/v1/projects/${client.projectId}/users?email=${email}`)).status === 200, {
      what: 'the implicit registration',
    });
    await waitFor(async () => (await api('GET', `/v1/projects/${client.projectId}/payments?email=${email}`)).body?.data?.length === 1, {
      what: 'the payment',
    });

    await page.getByLabel('Email or user_id').fill(email);
    await page.getByRole('button', { name: 'Find user' }).click();
    await page.waitForURL(`**/users/${encodeURIComponent(email)}`);
    await page.getByRole('heading', { name: 'Ada Lovelace', exact: true }).waitFor();
    const message = page.getByRole('article', { name: 'Message Welcome, Ada Lovelace' });
    // The list refreshes by itself while the message is in flight.
    const timeline = message.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('sent', { exact: true }).waitFor({ timeout: 30_000 });
    await expect(timeline.getByRole('listitem').allTextContents()).resolves.toEqual([
      expect.stringContaining('queued'),
      expect.stringMatching(/sent.*SMTP 250/),
    ]);
    // The email as sent: HTML in a sandbox="" iframe whose script does not run, the text part on demand.
    await message.getByRole('button', { name: 'Show email' }).click();
    const frame = message.getByTitle('Email as sent: Welcome, Ada Lovelace');
    await expect(frame.getAttribute('sandbox')).resolves.toBe('');
    const rendered = message.frameLocator('iframe[title="Email as sent: Welcome, Ada Lovelace"]');
    const greeting = rendered.getByText('Hi Ada Lovelace, your code is 4711.');
    await greeting.waitFor();
    await expect(rendered.getByText('script ran').count()).resolves.toBe(0);
    // The email's inline style applies: its frame has a policy of its own, not the panel's.
    const colourOf = (element: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(element).color;
    await expect(greeting.evaluate(colourOf)).resolves.toBe('rgb(190, 18, 60)');
    await message.getByRole('button', { name: 'Show text part' }).click();
    await expect(message.getByLabel('Text of the email Welcome, Ada Lovelace').textContent()).resolves.toBe(
      'Hi Ada Lovelace, your code is 4711 (text part).',
    );
    await message.getByRole('button', { name: 'Show HTML' }).click();
    await expect(page.getByLabel('Totals').textContent()).resolves.toContain('19.99');
    await expect(page.getByText('"pro"').count()).resolves.toBe(1);
    await shot('user-profile');
    await shotDark(page, shot, 'user-profile-dark');
  }, 90_000);

  it('on a phone, the profile fits the screen and shows the email as sent', async () => {
    const width = 390;
    await onPhone(browser, page, width, async (phone) => {
      const message = phone.getByRole('article', { name: 'Message Welcome, Ada Lovelace' });
      await message.getByRole('button', { name: 'Show email' }).click();
      const frame = message.getByTitle('Email as sent: Welcome, Ada Lovelace');
      const greeting = message
        .frameLocator('iframe[title="Email as sent: Welcome, Ada Lovelace"]')
        .getByText('Hi Ada Lovelace, your code is 4711.');
      await greeting.waitFor();
      await frame.scrollIntoViewIfNeeded();
      await expect(greeting.isVisible()).resolves.toBe(true);
      const box = await frame.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      // Nothing on the page is wider than the screen (no sideways scrolling).
      const pageWidth = await scrollWidthOf(phone);
      expect(pageWidth).toBeLessThanOrEqual(width);
      await phone.screenshot({ path: join(SCREENSHOTS, 'user-profile-phone.png') });
    });
  }, 60_000);

  it('unsubscribe and erase from the profile, the erase confirmed after naming the 2-day delay', async () => {
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByText('unsubscribed', { exact: true }).waitFor({ timeout: 20_000 });

    await page.getByRole('button', { name: 'Erase' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase this user?' });
    await expect(dialog.textContent()).resolves.toContain('2-day delay');
    await shot('erase-confirmation', false);
    await dialog.getByRole('button', { name: 'Erase user' }).click();
    await page.getByText('queued for erasure').waitFor({ timeout: 20_000 });
  }, 60_000);

  it('a webhook endpoint to a local receiver: created, its deliveries shown, a failed one retried from the panel', async () => {
    let answer = 200;
    const receiver = await startReceiver(() => answer);
    try {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description').fill('Local receiver');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await expect(page.getByLabel('Signing secret', { exact: true }).textContent()).resolves.toMatch(/^whsec_/);
      await shot('webhooks');

      await page.getByRole('link', { name: receiver.url }).first().click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page
        .getByRole('listitem', { name: 'Delivery webhook.test succeeded' })
        .waitFor({ timeout: 20_000 })
        .catch(async (error: unknown) => {
          await shot('failure-webhook-detail');
          throw error;
        });

      answer = 500;
      await page.getByRole('button', { name: 'Send test event' }).click();
      const failed = page.getByRole('listitem', { name: 'Delivery webhook.test failed' });
      await failed.waitFor({ timeout: 30_000 });
      await expect(failed.getByRole('row').count()).resolves.toBe(4); // header + 3 attempts, each a 500
      await expect(failed.textContent()).resolves.toContain('500');
      await shot('webhook-deliveries-failed');

      answer = 200;
      await failed.getByRole('button', { name: 'Retry' }).click();
      // The same delivery, now succeeded with a fourth attempt answered 200.
      const retried = page.getByRole('listitem', { name: 'Delivery webhook.test succeeded' }).filter({ has: page.getByRole('row').nth(4) });
      await retried.waitFor({ timeout: 20_000 });
      await expect(retried.getByRole('row').last().textContent()).resolves.toMatch(/^4.*200.*succeeded/);
      await page.getByLabel('Status').selectOption('failed');
      await page.getByText('No delivery matches these filters.').waitFor();
      await page.getByLabel('Status').selectOption('');
      await shot('webhook-detail');

      // Edit (into Resend's format, which the API refuses while an event listed has no counterpart in it),
      // disable and enable, rotate the secret (shown once).
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.getByLabel('Description').fill('Local receiver, edited');
      await page.getByLabel('Format').selectOption('resend');
      await page.getByLabel('All events').uncheck();
      await page.getByLabel('user.erased', { exact: true }).check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('alert').filter({ hasText: '/events/0: has no counterpart in the resend format' }).waitFor();
      await shot('webhook-format-refused');
      await page.getByLabel('All events').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Local receiver, edited').waitFor();
      await page.getByText("Resend — Resend's events, Svix headers").waitFor();
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('disabled', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByText('enabled', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
      await expect(page.getByLabel('Signing secret', { exact: true }).textContent()).resolves.toMatch(/^whsec_/);
      const stored = await api('GET', '/v1/webhooks');
      expect(stored.body.data[0]).toMatchObject({ description: 'Local receiver, edited', enabled: true, format: 'resend', events: ['*'] });
      // One test event that got through, and one tried three times, then once more by hand.
      expect(receiver.received.filter((r) => r.body.includes('"webhook.test"')).map((r) => r.status)).toEqual([200, 500, 500, 500, 200]);
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('an expired session sends the user back to sign in; signing out ends the session; no Content-Security-Policy violation', async () => {
    // A session the gateway no longer accepts (expired, or its key revoked), met by the next action.
    await page.context().addCookies([{ name: 'postbus_session', value: 'ey.expired.session', url: system.gatewayUrl }]);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL('**/admin/sign-in');
    await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
    await page.getByLabel('Client ID').fill(client.clientId);
    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the session ended.
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/admin/sign-in');
    expect((await page.context().cookies()).find((c) => c.name === 'postbus_session')).toBeUndefined();
    await page.goto(`${panel}webhooks`);
    await page.waitForURL('**/admin/sign-in');
    expect(cspViolations).toEqual([]);
  }, 30_000);
});
