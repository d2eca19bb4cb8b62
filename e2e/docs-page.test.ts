import { randomBytes } from 'node:crypto';
import { freePort, startService, uniqueName, type ServiceProcess } from '@postbus/testing';
import { openPanelBrowser, type PanelBrowser } from './browser';

/**
 * /docs in Chromium, from the gateway process as it runs: the reference renders this gateway's
 * document under the page's Content-Security-Policy, with no violation and no request elsewhere.
 */
describe('the API reference at /docs in a real browser', () => {
  let gateway: ServiceProcess;
  let chrome: PanelBrowser;

  beforeAll(async () => {
    const id = uniqueName('e2e');
    gateway = await startService(
      'gateway',
      await freePort(),
      {
        KAFKA_NAMESPACE: id,
        KAFKA_TOPIC_PARTITIONS: '1',
        GATEWAY_DB_NAME: `${id}_gateway`.replace(/-/g, '_'),
        INTERNAL_API_SECRET: randomBytes(32).toString('hex'),
        INTERNAL_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      `${id}-gateway`,
    );
    chrome = await openPanelBrowser();
  }, 120_000);

  afterAll(async () => {
    await chrome?.browser.close();
    await gateway?.stop();
  });

  it('renders /v1/openapi.json with Swagger UI, causing no CSP violation and requesting nothing from another origin', async () => {
    const { page, cspViolations } = chrome;
    const origin = new URL(gateway.url).origin;
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    // Reported by the page itself too, in case a violation logs nothing on the console.
    await page.addInitScript({
      content:
        "window.cspSeen = []; document.addEventListener('securitypolicyviolation', (e) => window.cspSeen.push(e.violatedDirective + ' ' + e.blockedURI));",
    });

    const response = await page.goto(`${gateway.url}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: /Postbus API/ }).waitFor({ timeout: 30_000 });
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);

    // An operation opened shows its parameters and schemas (more of Swagger UI's components).
    await page.locator('.opblock-summary').filter({ hasText: '/v1/sender-domains' }).first().click();
    await page.locator('.opblock-body').first().waitFor();
    await chrome.shot('docs');

    expect(requested.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${origin}/v1/openapi.json`);
    expect(cspViolations).toEqual([]);
    expect(await page.evaluate<string[]>('window.cspSeen')).toEqual([]);
  }, 90_000);
});
