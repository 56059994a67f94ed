// Chromium from Debian, driven by playwright-core (TOOLCHAIN.md §9). The browser tests run only where
// /usr/bin/chromium exists — .ci/run installs it, so CI always runs them — and say why when skipped.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);
export const noChromium = `no Chromium at ${chromiumPath} (apt-get install -y chromium; .ci/run does)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** Where failing browser tests leave a screenshot (git-ignored). */
export const artifactsDir = 'test-artifacts';

/** Runs `check` on the page; on failure saves a screenshot named after the test, then rethrows. */
export async function withScreenshot(page: Page, name: string, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    await mkdir(artifactsDir, { recursive: true });
    await page.screenshot({ path: `${artifactsDir}/${name}.png`, fullPage: true }).catch(() => undefined);
    throw error;
  }
}
/** The active states the page draws, as `machine:state` (`agent/turn/step:requesting`). */
export function lit(page: Page): Promise<string[]> {
  return page
    .locator('.chart .state.active')
    .evaluateAll((nodes) =>
      nodes.map(
        (node) =>
          `${(node.closest('.chart') as HTMLElement).dataset.machine}:${(node as SVGElement).dataset.state}`,
      ),
    );
}
