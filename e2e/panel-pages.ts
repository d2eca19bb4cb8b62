import type { Browser, Page } from 'playwright-core';

/**
 * Shoots the page in the dark colour scheme as `name`, then goes back to light; `transitionMs`: a wait
 * for colour transitions (such as the buttons') to end before the shot.
 */
export async function shotDark(page: Page, shot: (name: string) => Promise<unknown>, name: string, transitionMs = 0): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  if (transitionMs > 0) await page.waitForTimeout(transitionMs);
  await shot(name);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** What `page` shows, opened on a phone `width` px wide and signed in as `page` is, for `body`; closed after it. */
export async function onPhone(browser: Browser, page: Page, width: number, body: (phone: Page) => Promise<void>): Promise<void> {
  const phone = await browser.newPage({
    viewport: { width, height: 844 },
    isMobile: true,
    hasTouch: true,
    storageState: await page.context().storageState(),
  });
  try {
    await phone.goto(page.url());
    await body(phone);
  } finally {
    await phone.close();
  }
}

/** How wide the page's content is: past the viewport's width, it scrolls sideways. */
export const scrollWidthOf = (page: Page): Promise<number> =>
  page.evaluate(
    () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
  );
