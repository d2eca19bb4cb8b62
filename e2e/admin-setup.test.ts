/** @postbus-system shared */
import type { Page } from 'playwright-core';
import { call, waitFor } from '@postbus/testing';
import { openPanelBrowser, type PanelBrowser } from './browser';
import { shotDark } from './panel-pages';
import { createClientAndProject, sharedSystem, type DemoClient, type RunningSystem } from './system';

/**
 * Slice 2 of the admin panel in a real browser: the setup walk from a new sender domain to a
 * sendable email, then the message log and its chart, revenue, erasures and API keys.
 */
describe('the admin panel setup, messages, revenue, erasures and API keys in a real browser (issue 15)', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let panel: PanelBrowser;
  let page: Page;
  let base: string;
  const domain = 'mail.setup.e2e.example';

  beforeAll(async () => {
    system = await sharedSystem();
    // The operator's CLI makes the client; its first project has no sender domain, template or email yet.
    client = await createClientAndProject(system);
    base = `${system.gatewayUrl}/admin`;
    panel = await openPanelBrowser();
    page = panel.page;
  }, 120_000);

  afterAll(async () => {
    await panel?.browser.close();
  });

  const api = (method: string, path: string, json?: unknown) =>
    call(system.gatewayUrl, method, path, { auth: client.auth, ...(json !== undefined ? { json } : {}) });
  const p = () => `/v1/projects/${client.projectId}`;
  /** On failure, what the page showed: the first thing to look at. */
  const orShot = async <T>(name: string, step: Promise<T>): Promise<T> =>
    step.catch(async (error: unknown) => {
      await panel.shot(`failure-${name}`);
      throw error;
    });

  /** A phone's width: the screen fits it (nothing wider than 390 px to scroll sideways to), and its screenshot. */
  const atPhoneWidth = async (name: string) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await panel.shot(name);
    // What sticks out, for the failure message: elements past the right edge that no scrolling box clips.
    // (Browser code as a string: the e2e project is type-checked without the DOM library.)
    const overflowing = await page.evaluate<string[]>(`(() => {
      const clipped = (el) => el.parentElement !== null && el.parentElement !== document.body &&
        (getComputedStyle(el.parentElement).overflowX !== 'visible' || clipped(el.parentElement));
      return [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !clipped(el))
        .map((el) => el.tagName.toLowerCase() + '.' + el.getAttribute('class'))
        .slice(0, 5);
    })()`);
    expect({ width: await page.evaluate<number>('document.documentElement.scrollWidth'), overflowing }).toEqual({
      width: 390,
      overflowing: [],
    });
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  it('signed in, a new client sees the setup checklist with the sender domain as the next step', async () => {
    await page.goto(`${base}/`);
    await page.waitForURL('**/admin/sign-in');
    await page.getByLabel('Client ID').fill(client.clientId);
    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await orShot('home', page.getByRole('heading', { name: 'Welcome to Postbus' }).waitFor());
    const next = page.getByRole('listitem').and(page.locator('[aria-current="step"]'));
    await expect(next.textContent()).resolves.toContain('Sender domain');
    await panel.shot('home-checklist');
    await next.getByRole('link', { name: 'Next step' }).click();
    await page.waitForURL('**/admin/setup#sender-domains');
    await page.getByRole('heading', { name: 'Setup' }).waitFor();
  }, 60_000);

  it('walks setup: sender domain with its records verified, the project on it, a template with preview and versions, an email', async () => {
    // 1. The sender domain: its records shown with copy buttons; once published in DNS, Verify finds each.
    await page.getByLabel('New sender domain').fill(domain);
    await page.getByRole('button', { name: 'Add sender domain' }).click();
    const card = page.getByRole('article', { name: `sender domain ${domain}` });
    await card.waitFor();
    await expect(card.getByRole('listitem', { name: 'DKIM record' }).textContent()).resolves.toContain('._domainkey.');
    await expect(card.getByRole('button', { name: /^Copy (SPF|DKIM|DMARC) TXT value$/ }).count()).resolves.toBe(3);
    await card.getByRole('button', { name: 'Verify' }).click();
    await card.getByText('not found').first().waitFor();
    await panel.shot('setup-domain-unverified');

    const listed = (await api('GET', '/v1/sender-domains')).body as {
      data: Array<{ domain: string; records: Array<{ name: string; type: 'TXT'; value: string }> }>;
    };
    for (const record of listed.data.find((d) => d.domain === domain)!.records)
      system.dns.publish(record.name, record.type, [record.value]);
    await card.getByRole('button', { name: 'Verify' }).click();
    await orShot('verify', card.getByText('verified', { exact: true }).waitFor({ timeout: 20_000 }));
    await expect(card.getByText('found', { exact: true }).count()).resolves.toBeGreaterThanOrEqual(3);

    // 3. The project sends from it.
    const projects = page.locator('#projects').locator('xpath=ancestor::section[1]');
    await projects.getByLabel('Sender domain').selectOption({ label: `${domain} (verified)` });
    await projects.getByLabel('From address').fill(`hello@${domain}`);
    await projects.getByLabel('From name').fill('Setup E2E');
    await projects.getByRole('button', { name: 'Save project' }).click();
    await projects.getByText(`sends from ${domain} (verified) as hello@${domain}`).waitFor();
    const steps = page.getByRole('list', { name: 'Setup steps' });
    await expect(steps.locator('[aria-current="step"]').textContent()).resolves.toContain('Template');
    await panel.shot('setup');

    // 4. A template: highlighted HTML, rendered by the API's preview with the sample user, then a second version.
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    // Syntax highlighting that shows: a tag name in another colour than the text around it (CodeMirror's
    // styles applied despite the panel's CSP), and the editor named for screen readers.
    const editor = page.getByRole('textbox', { name: 'HTML' });
    await editor.waitFor();
    // The editor lives in a shadow root (see template-editor.tsx): found from its host. CodeMirror parses in
    // idle time, so on a busy machine the first colours come some frames after the editor shows: polled.
    const colouredTokens = `(() => {
      const content = [...document.querySelectorAll('*')].find((el) => el.shadowRoot)?.shadowRoot.querySelector('.cm-content');
      const line = content && content.querySelector('.cm-line');
      if (!line) return 0;
      const text = getComputedStyle(line).color;
      return [...content.querySelectorAll('.cm-line span[class]')].filter((span) => getComputedStyle(span).color !== text).length;
    })()`;
    await page.waitForFunction(`${colouredTokens} > 0`, undefined, { timeout: 15_000 }).catch(() => undefined);
    expect(await page.evaluate<number>(colouredTokens)).toBeGreaterThan(0);
    // The live preview renders the unsaved template through the API before anything is saved.
    await page.getByLabel('Subject', { exact: true }).fill('Welcome, {{user.name}}');
    await page.getByLabel('Rendered subject').waitFor();
    await expect(page.frameLocator('iframe[title="Rendered email"]').locator('strong').textContent()).resolves.toBe('4711');
    // The API's check while typing: a broken line 2 (`{{data.code}</strong>`) shows its error under the HTML
    // field, with the count by Save; undone, both go. What the template reads is listed by the preview.
    await expect(page.getByText('Reads:').textContent()).resolves.toBe('Reads: data.code, user.name');
    await editor.click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    for (let i = 0; i < '}</strong>.</p>'.length; i++) await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Backspace');
    // (The editor's own description, a hidden copy inside its shadow root, is not a list item.)
    const inlineError = page.getByRole('listitem').filter({ hasText: /^Line 2, column \d+: / });
    await orShot('inline-error', inlineError.waitFor());
    await expect(page.getByRole('status').filter({ hasText: 'in the template' }).textContent()).resolves.toBe('1 error in the template');
    await expect(editor.getAttribute('aria-invalid')).resolves.toBe('true');
    await inlineError.scrollIntoViewIfNeeded();
    await panel.shot('template-editor-inline-error', false);
    await page.keyboard.press('Control+z');
    await orShot('inline-error-gone', inlineError.waitFor({ state: 'detached' }));
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/[0-9a-f]{24}$/);
    await expect(page.getByLabel('Rendered subject').textContent()).resolves.toBe('Welcome, Ada Lovelace');
    const rendered = page.frameLocator('iframe[title="Rendered email"]');
    await expect(rendered.locator('strong').textContent()).resolves.toBe('4711');
    await page.getByLabel('Sample data').fill('{"code": "0042"}');
    await orShot(
      'preview',
      waitFor(async () => (await rendered.locator('strong').textContent()) === '0042', { what: 'the preview of new data' }),
    );

    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Thanks for joining.');
    await orShot(
      'preview-unsaved',
      waitFor(async () => ((await rendered.locator('body').textContent()) ?? '').includes('Thanks for joining.'), {
        what: 'the live preview of the unsaved edit',
      }),
    );
    // A save that sends use at once (Save draft would keep version 1 published).
    await page.getByRole('button', { name: 'Save and publish' }).click();
    await page.getByText('version 2 of 2').waitFor();
    await page.getByText('Published v2', { exact: true }).waitFor();
    await waitFor(async () => ((await rendered.locator('body').textContent()) ?? '').includes('Thanks for joining.'), {
      what: 'the preview of version 2',
    });
    await panel.shot('template-editor');
    // Each version names who saved it (the panel's session: the key's name, via panel) and when (the reader's local time).
    await page.getByRole('tab', { name: 'Versions' }).click();
    const versions = page.getByRole('list', { name: 'Versions' });
    await versions.getByRole('listitem').first().waitFor();
    await expect(versions.getByRole('listitem').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^v2publishedin the editorkey “.+” via panel · \S.*\d\D*$/),
      expect.stringMatching(/^v1key “.+” via panel · \S.*\d\D*OpenRoll back$/),
    ]);
    await versions.getByRole('button', { name: 'Open version 1' }).click();
    await page.getByText('You are looking at version 1').waitFor();
    await expect(page.getByRole('button', { name: 'Save draft' }).isEnabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Roll back to v1' }).isEnabled()).resolves.toBe(true);
    await page.getByRole('tab', { name: 'Preview' }).click();
    await shotDark(page, (name) => panel.shot(name), 'template-editor-dark', 300); // 300 ms: the buttons' colour transition

    // 5. The transactional email, bound to the template by its key.
    await page.getByRole('link', { name: '← Setup' }).click();
    const emails = page.locator('#emails').locator('xpath=ancestor::section[1]');
    await emails.getByLabel('Key').fill('welcome');
    await emails.getByLabel('Name').fill('Welcome email');
    await emails.getByLabel('Track opens').check();
    await emails.getByRole('button', { name: 'Create email' }).click();
    await emails.getByLabel('Send welcome with curl').waitFor();
    await page.getByText('Everything is in place').waitFor();
    await expect(emails.getByText('ready to send').count()).resolves.toBe(1);
    await panel.shot('setup-done');
    await atPhoneWidth('setup-phone');
  }, 120_000);

  it('an email sent through the API shows in the message log, filtered, and in the chart of the day', async () => {
    for (const [email, name] of [
      ['ada@example.com', 'Ada'],
      ['grace@example.com', 'Grace'],
    ]) {
      const sent = await api('POST', `${p()}/emails/welcome/send`, { user: { email, name }, data: { code: '1' } });
      expect(sent.status).toBe(200);
    }
    // The send call answers before the mailer has recorded the message: the panel shows what is recorded.
    const today = new Date().toISOString().slice(0, 10);
    await waitFor(
      async () => ((await api('GET', `${p()}/messages/stats?from=${today}&to=${today}`)).body?.data?.[0]?.counts?.queued ?? 0) === 2,
      { what: 'both messages recorded', timeoutMs: 20_000 },
    );
    await page.goto(`${base}/projects/${client.projectId}/messages`);
    await page.getByRole('heading', { name: 'Messages', exact: true }).waitFor();
    const log = page.getByRole('table').filter({ hasText: 'Recipient' });
    // The log polls while a message is in flight.
    await orShot(
      'messages',
      waitFor(async () => (await log.getByText('sent', { exact: true }).count()) === 2, { what: 'both messages sent', timeoutMs: 30_000 }),
    );
    await orShot(
      'messages-chart',
      waitFor(async () => ((await page.getByLabel('Totals by status').textContent()) ?? '').includes('2 accepted, 2 sent'), {
        what: 'the chart counting both',
        timeoutMs: 20_000,
      }),
    );
    await expect(page.locator('.recharts-bar-rectangle').count()).resolves.toBeGreaterThan(0);
    await expect(page.getByText('UTC day').count()).resolves.toBeGreaterThan(0);
    await panel.shot('messages');

    await page.getByLabel('Recipient').fill('Grace@Example.com');
    await page.getByLabel('Status', { exact: true }).selectOption('sent');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=sent/);
    await waitFor(async () => (await log.getByRole('row').count()) === 2, { what: 'only Grace left (header + one row)' });
    await log.getByRole('link', { name: 'grace@example.com' }).click();
    await page.waitForURL(`**/users/${encodeURIComponent('grace@example.com')}`);
    await page.getByRole('heading', { name: 'Grace', exact: true }).waitFor();
    await page.goBack();
    await atPhoneWidth('messages-phone');
  }, 90_000);

  it('payments recorded through the API show as revenue per currency, in each currency’s own digits', async () => {
    const payments = [
      { email: 'ada@example.com', payment_id: 'pay_eur_1', amount: 1999, currency: 'EUR' },
      { email: 'grace@example.com', payment_id: 'pay_eur_2', amount: 501, currency: 'EUR' },
      { email: 'ada@example.com', payment_id: 'pay_jpy_1', amount: 1500, currency: 'JPY' },
    ];
    for (const payment of payments) expect((await api('POST', `${p()}/payments`, payment)).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    await waitFor(
      async () => ((await api('GET', `${p()}/analytics/revenue?from=${today}&to=${today}`)).body?.currencies?.length ?? 0) === 2,
      { what: 'both currencies in the revenue' },
    );
    await page.getByRole('link', { name: 'Revenue' }).click();
    await page.getByRole('heading', { name: 'Revenue' }).waitFor();
    const totals = page.getByRole('list', { name: 'Totals per currency' });
    await orShot('revenue', totals.waitFor());
    await expect(totals.textContent()).resolves.toContain('€25.00');
    await expect(totals.textContent()).resolves.toContain('¥1,500');
    await page.getByRole('button', { name: '7 days' }).click();
    await page.waitForURL(/range=7d/);
    await page.getByRole('button', { name: '7 days', pressed: true }).waitFor();
    await expect(page.locator('.recharts-bar-rectangle').count()).resolves.toBeGreaterThanOrEqual(2);
    await panel.shot('revenue');
    await shotDark(page, (name) => panel.shot(name), 'revenue-dark', 300); // 300 ms: the buttons' colour transition
  }, 60_000);

  it('an erasure requested through the API is listed with its state, erase_at and the services that confirmed', async () => {
    const erased = await api('POST', `${p()}/users/erase`, { email: 'grace@example.com' });
    expect(erased.status).toBe(200);
    await waitFor(async () => ((await api('GET', '/v1/erasures')).body?.data?.length ?? 0) === 1, { what: 'the erasure recorded' });
    await page.getByRole('link', { name: 'Erasures' }).click();
    await page.getByRole('heading', { name: 'Erasures' }).waitFor();
    const item = page.getByRole('listitem', { name: new RegExp(`^Erasure ${erased.body.erasure_id as string} `) });
    await orShot('erasures', item.waitFor({ timeout: 20_000 }));
    await expect(item.textContent()).resolves.toContain('Erase at');
    await expect(item.textContent()).resolves.toMatch(/Waiting for:|Confirmed by:/);
    await panel.shot('erasures');
  }, 60_000);

  it('API keys: the list, an sdk key created with the full key (refused to the session alone), shown once, then revoked', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('row', { name: /^Key / }).first().waitFor();
    await expect(page.getByRole('row', { name: /^Key / }).count()).resolves.toBe(1);
    // The session alone may not create keys: the gateway says so.
    const bySession = await page.evaluate(async () => {
      const res = await fetch('/v1/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":"x","scope":"sdk"}',
      });
      return res.status;
    });
    expect(bySession).toBe(401);

    await page.getByLabel('Key name').fill('checkout backend');
    await page.getByLabel('Your API key (scope full)').fill('pb_full_wrong');
    await page.getByRole('button', { name: 'Create sdk key' }).click();
    await page.getByText('That API key was not accepted').waitFor();
    await page.getByLabel('Your API key (scope full)').fill(client.apiKey);
    await page.getByRole('button', { name: 'Create sdk key' }).click();
    const secret = (await page.getByLabel('New API key', { exact: true }).textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await expect(page.getByLabel('Your API key (scope full)').inputValue()).resolves.toBe('');
    const row = page.getByRole('row', { name: 'Key checkout backend' });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('sdk');
    await panel.shot('api-keys-created');
    // The new key works, with its scope: it may send but not manage.
    const sdkAuth = `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}`;
    expect((await call(system.gatewayUrl, 'GET', '/v1/projects', { auth: sdkAuth })).status).toBe(403);

    await page.getByRole('button', { name: 'I stored it' }).click();
    await row.getByRole('button', { name: 'Revoke checkout backend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke checkout backend?' });
    await panel.shot('api-keys-revoke', false);
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('revoked', { exact: true }).waitFor();
    await waitFor(async () => (await call(system.gatewayUrl, 'GET', '/v1/projects', { auth: sdkAuth })).status === 401, {
      what: 'the revoked key refused',
    });
    await panel.shot('api-keys');
    await atPhoneWidth('api-keys-phone');
  }, 60_000);

  it('API keys: a key bound to the project, listed with its project, said to be sent alone, and accepted as a Bearer token', async () => {
    await expect(page.getByRole('row', { name: /^Key / }).first().textContent()).resolves.toContain('All projects');
    await page.getByLabel('Key name').fill('shop backend');
    await page.getByLabel('Scope', { exact: true }).selectOption('full');
    await page.getByLabel('Bind to project').selectOption({ label: 'E2E project' });
    await page.getByLabel('Your API key (scope full)').fill(client.apiKey);
    await page.getByRole('button', { name: 'Create full key' }).click();
    const secret = (await page.getByLabel('New API key', { exact: true }).textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('status').filter({ hasText: 'shop backend (full, E2E project only)' }).getByText('Send it alone').waitFor();
    const row = page.getByRole('row', { name: 'Key shop backend' });
    await orShot('api-keys-bound', row.getByText('E2E project', { exact: true }).waitFor());
    await panel.shot('api-keys-bound', false);
    // The key alone names its client and project: no client id goes with it.
    const project = await call(system.gatewayUrl, 'GET', p(), { auth: `Bearer ${secret}` });
    expect(project.status).toBe(200);
    await page.getByRole('button', { name: 'I stored it' }).click();
  }, 60_000);

  it('loaded every screen without a Content-Security-Policy violation (CodeMirror and recharts included)', () => {
    expect(panel.cspViolations).toEqual([]);
  });
});
