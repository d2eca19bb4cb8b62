import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { freePort, repoRoot, waitFor } from '@postbus/testing';
import { openPanelBrowser, SCREENSHOTS, type PanelBrowser } from './browser';

/**
 * The public status page (issue 17) in Chromium, in each state, light and dark: screenshots to
 * .data/screenshots/status-<state>-<scheme>.png. The pages come from the status service's preview
 * server (made-up snapshots, one per state under /<state>/), so every state can be shown at once.
 */
const STATES: Array<{ state: string; banner: string; visible: string[] }> = [
  { state: 'operational', banner: 'All Systems Operational', visible: ['Email sending', 'Infrastructure', 'Send delay (canary)'] },
  { state: 'degraded', banner: 'Minor Service Outage', visible: ['Degraded performance'] },
  { state: 'major-outage', banner: 'Major Service Outage', visible: ['Open incidents', 'Email sending is down', 'Major outage'] },
  {
    state: 'maintenance',
    banner: 'Service Under Maintenance',
    visible: ['Maintenance in progress', 'Database upgrade', 'Under maintenance'],
  },
  { state: 'stale', banner: 'Some Systems Not Reporting', visible: ['Not reporting'] },
];

describe('the status page in a browser', () => {
  let preview: ChildProcess;
  let base: string;
  let chrome: PanelBrowser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    preview = spawn(process.execPath, [join(repoRoot, 'services', 'status', 'preview', 'dist', 'server.js')], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok, {
      timeoutMs: 30_000,
      what: 'the status preview server',
    });
    chrome = await openPanelBrowser();
    // A reader in India: the page's script must show UTC+05:30 times.
    context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'Asia/Kolkata' });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content[- ]Security[- ]Policy/i.test(message.text())) chrome.cspViolations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await chrome?.browser.close();
    preview?.kill('SIGTERM');
  });

  for (const { state, banner, visible } of STATES) {
    it(`shows the ${state} state, light and dark`, async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${base}/${state}/`);
        await page.locator('.banner', { hasText: banner }).waitFor();
        for (const text of visible) expect(await page.getByText(text, { exact: false }).first().isVisible()).toBe(true);
        // The 90-day bars and the chart are drawn; the times are in the reader's zone, offset shown.
        expect(await page.locator('.component .bar').count()).toBe(7);
        expect(await page.locator('svg.chart').isVisible()).toBe(true);
        expect(await page.locator('footer time').textContent()).toMatch(/ UTC\+05:30$/);
        const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
        expect(background).toBe(scheme === 'dark' ? 'rgb(15, 18, 23)' : 'rgb(247, 248, 250)');
        await page.screenshot({ path: join(SCREENSHOTS, `status-${state}-${scheme}.png`), fullPage: true });
      }
      expect(chrome.cspViolations).toEqual([]);
    });
  }

  it('a day with an incident opens its details with a tap (no JavaScript needed)', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/operational/`);
    const day = page.locator('[data-component="sending.mailer"] details.d').first();
    await day.locator('summary').click();
    expect(await day.locator('.tip').textContent()).toContain('Delayed email sending');
    await page.screenshot({ path: join(SCREENSHOTS, 'status-day-details.png') });
  });

  it('the history page and an incident page render', async () => {
    await page.goto(`${base}/major-outage/history`);
    expect(await page.getByText('Webhook deliveries failing').isVisible()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'status-history.png'), fullPage: true });
    await page.goto(`${base}/major-outage/incidents/inc-open`);
    expect(await page.getByText('The outbound relay refuses connections').isVisible()).toBe(true);
  });
});
