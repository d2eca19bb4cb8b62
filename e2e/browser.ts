import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '@postbus/testing';

/** Where the browser tests save their screenshots: an artifact, never committed. */
export const SCREENSHOTS = join(repoRoot, '.data', 'screenshots');

/** Debian's Chromium: the browser the tests drive (playwright-core downloads none). */
export function chromiumPath(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium is not installed: the admin panel tests drive it. Install it with `apt-get install chromium` (Debian).');
  }
}

export interface PanelBrowser {
  browser: Browser;
  page: Page;
  /** Messages the page logged about a Content-Security-Policy violation: the panel must cause none. */
  cspViolations: string[];
  /** Saves the page as .data/screenshots/<name>.png. */
  shot(name: string, fullPage?: boolean): Promise<void>;
}

/** Chromium with one 1280×800 page, watching for CSP violations. */
export async function openPanelBrowser(): Promise<PanelBrowser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // As root (CI containers) Chromium needs --no-sandbox.
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content[- ]Security[- ]Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return {
    browser,
    page,
    cspViolations,
    shot: async (name, fullPage = true) => {
      const path = join(SCREENSHOTS, `${name}.png`);
      const viewport = page.viewportSize();
      const height = fullPage ? await page.evaluate<number>('document.documentElement.scrollHeight') : 0;
      if (!viewport || height <= viewport.height) return void (await page.screenshot({ path }));
      // Chromium's fullPage capture leaves sandboxed (out-of-process) iframes blank, such as the
      // rendered email: the viewport is grown to the page instead, and the frames get to paint.
      await page.setViewportSize({ width: viewport.width, height });
      await page.waitForTimeout(150);
      await page.screenshot({ path });
      await page.setViewportSize(viewport);
    },
  };
}
