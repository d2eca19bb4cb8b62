/** @postbus-system shared */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { waitFor } from '@postbus/testing';
import { openPanelBrowser, SCREENSHOTS } from './browser';
import { onPhone, scrollWidthOf, shotDark } from './panel-pages';
import { createClientAndProject, createSendableEmail, sharedSystem, type DemoClient, type RunningSystem } from './system';
import { inboundFixture, mailToInbound } from './inbound-mail';
import { projectCall, sendAndReceive } from './project-api';

const DOMAIN = 'mail.panel-feedback.example';

/**
 * The suppression list in the panel (issue 33), with suppressions made the way they really are: a
 * hard bounce and a spam complaint mailed to the inbound MX at a message's return path, and an
 * address added by hand in the panel.
 */
describe("the admin panel's suppression list in a real browser, against the running system (issue 33)", () => {
  let system: RunningSystem;
  let client: DemoClient;
  let browser: Browser;
  let page: Page;
  let cspViolations: string[] = [];
  const bounced = 'gone@example.org';
  const complaining = 'angry@example.org';
  const blocked = 'blocked@example.com';
  /** The message whose bounce suppressed `bounced`. */
  let bounceMessage: string;

  const inProject = (method: string, path: string, json?: unknown) => projectCall(system, client, method, path, json);
  const shot = (name: string, fullPage = true) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });

  /** Sends the email to `email`, waits until it is sent, and returns its id and envelope sender. */
  async function sendTo(email: string) {
    const { id, mail } = await sendAndReceive(system, client, DOMAIN, { email, name: 'Feedback' });
    return { id, returnPath: String(mail.ReturnPath) };
  }

  const suppressedFor = (email: string, reason: string) =>
    waitFor(async () => (await inProject('GET', `/suppressions?email=${email}`)).body?.data?.[0]?.reason === reason || undefined, {
      timeoutMs: 30_000,
      what: `${email} suppressed (${reason})`,
    });

  beforeAll(async () => {
    system = await sharedSystem();
    client = await createClientAndProject(system);
    await createSendableEmail(system, client, { domain: DOMAIN });
    const [bounce, complaint] = await Promise.all([sendTo(bounced), sendTo(complaining)]);
    bounceMessage = bounce.id;
    await mailToInbound(system, bounce.returnPath, inboundFixture('postfix/failed-550-user-unknown.eml'));
    await mailToInbound(system, complaint.returnPath, inboundFixture('complaints/arf-abuse-rfc822-headers.eml'));
    await Promise.all([suppressedFor(bounced, 'hard_bounce'), suppressedFor(complaining, 'complaint')]);

    ({ browser, page, cspViolations } = await openPanelBrowser());
    await page.goto(`${system.gatewayUrl}/admin/`);
    await page.waitForURL('**/admin/sign-in');
    await page.getByLabel('Client ID').fill(client.clientId);
    await page.getByLabel('API key').fill(client.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // Signed in, the panel goes on to the project's user search by itself: a section opened before it lands
    // (the first test's click) is overtaken by that redirect, which happened on a loaded machine.
    await page.waitForURL(`**/admin/projects/${client.projectId}/users`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('opens from the navigation with the bounce and the complaint, each naming its message; an address added by hand is listed first', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Suppressions' }).click();
    await page.waitForURL(`**/admin/projects/${client.projectId}/suppressions`);
    await page.getByRole('heading', { name: 'Suppressions' }).waitFor();
    const bounceRow = page.getByRole('row', { name: `Suppression of ${bounced}` });
    await expect(bounceRow.textContent()).resolves.toContain('hard_bounce');
    await expect(bounceRow.getByRole('link', { name: bounceMessage }).getAttribute('href')).resolves.toBe(
      `/admin/projects/${client.projectId}/messages?email=${encodeURIComponent(bounced)}`,
    );
    await expect(page.getByRole('row', { name: `Suppression of ${complaining}` }).textContent()).resolves.toContain('complaint');

    await page.getByLabel('Address to suppress').fill(blocked);
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    // Accepted, then applied by the mailer: the screen waits until the list shows it.
    await page.getByText(`${blocked} is suppressed`).waitFor({ timeout: 30_000 });
    const row = page.getByRole('row', { name: `Suppression of ${blocked}` });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('manual');
    await expect(
      page
        .getByRole('row', { name: /^Suppression of / })
        .first()
        .getAttribute('aria-label'),
    ).resolves.toBe(`Suppression of ${blocked}`);
    await page.mouse.move(0, 0);
    await shot('suppressions');
    await shotDark(page, shot, 'suppressions-dark');
  }, 60_000);

  it('on a phone, the screen fits its width', async () => {
    const width = 390;
    await onPhone(browser, page, width, async (phone) => {
      await phone.getByRole('row', { name: `Suppression of ${blocked}` }).waitFor();
      const pageWidth = await scrollWidthOf(phone);
      expect(pageWidth).toBeLessThanOrEqual(width);
      await phone.screenshot({ path: join(SCREENSHOTS, 'suppressions-phone.png'), fullPage: true });
    });
  }, 60_000);

  it("filters by reason; removing a complaint shows the API's refusal; removing the manual one is confirmed and done", async () => {
    await page.getByLabel('Reason').selectOption('complaint');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL('**/suppressions?reason=complaint');
    await page.getByRole('row', { name: `Suppression of ${blocked}` }).waitFor({ state: 'detached' });
    await expect(page.getByRole('row', { name: /^Suppression of / }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: `Remove ${complaining}` }).click();
    const refused = page.getByRole('dialog', { name: `Remove ${complaining} from the suppression list?` });
    await refused.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(refused.getByRole('alert').textContent()).resolves.toContain('The recipient reported a message as spam');
    await shot('suppression-remove-refused', false);
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await refused.waitFor({ state: 'hidden' });
    expect((await inProject('GET', `/suppressions?email=${complaining}`)).body.data).toHaveLength(1);

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: `Remove ${blocked}` }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${blocked} from the suppression list?` });
    await expect(dialog.textContent()).resolves.toContain('Postbus will mail this address again');
    await shot('suppression-remove-confirmation', false);
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByText(`${blocked} is no longer suppressed`).waitFor({ timeout: 30_000 });
    await page.getByRole('row', { name: `Suppression of ${blocked}` }).waitFor({ state: 'detached' });
    expect((await inProject('GET', `/suppressions?email=${blocked}`)).body.data).toEqual([]);
  }, 90_000);

  it('the profile says an address is suppressed and why, and its timeline shows the bounce report and the complaint', async () => {
    await page.getByRole('link', { name: bounced, exact: true }).click();
    await page.waitForURL(`**/users/${encodeURIComponent(bounced)}`);
    await page.getByText('suppressed: hard_bounce').waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText(/^Bounce: hard bounce \(failed 5\.1\.1\)/).waitFor();
    await shot('user-profile-bounced');
    await page.getByRole('link', { name: 'in the suppression list' }).click();
    await page.waitForURL(`**/suppressions?email=${encodeURIComponent(bounced)}`);
    await page.getByRole('row', { name: `Suppression of ${bounced}` }).waitFor();

    await page.goto(`${system.gatewayUrl}/admin/projects/${client.projectId}/users/${encodeURIComponent(complaining)}`);
    await page.getByText('suppressed: complaint').waitFor();
    const message = page.getByRole('article').first();
    // Beside the status (sent: a complaint is no delivery status), and on the timeline with the report's kind.
    await message.locator('header').getByText('complained', { exact: true }).waitFor();
    await message
      .getByRole('list', { name: 'Timeline' })
      .getByText(/^Complaint: abuse report/)
      .waitFor();
    await shot('user-profile-complained');
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
