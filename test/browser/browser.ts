// Chromium from Debian, driven by playwright-core (TOOLCHAIN.md §9). The browser tests run only where
// /usr/bin/chromium exists — .ci/run installs it, so CI always runs them — and say why when skipped.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { InspectorServer } from '../../src/inspector/server.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';

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

let shared: Browser | undefined;

/** The Chromium of the calling file's `describeInChromium` block. */
export function sharedBrowser(): Browser {
  if (!shared) throw new Error('sharedBrowser() is for tests inside describeInChromium');
  return shared;
}

/**
 * A describe block whose tests share one Chromium (`sharedBrowser()`), launched before them and closed
 * after; skipped, saying why, where there is no Chromium.
 */
export function describeInChromium(title: string, body: () => void): void {
  describe.skipIf(!hasChromium)(`${title}${hasChromium ? '' : ` — skipped: ${noChromium}`}`, () => {
    beforeAll(async () => {
      shared = await launchChromium();
    });
    afterAll(async () => {
      await shared?.close();
      shared = undefined;
    });
    body();
  });
}

/** A page whose script errors are collected in `errors` (a test expects none). */
export type WatchedPage = Page & { errors: string[] };

/** Opens `url` in a new page of `sharedBrowser()`: 1,400 × 1,000 unless told, errors collected. */
export async function openWatchedPage(
  url: string,
  options: { width?: number; height?: number; timeoutMs?: number } = {},
): Promise<WatchedPage> {
  const viewport = { width: options.width ?? 1400, height: options.height ?? 1000 };
  const page = Object.assign(await sharedBrowser().newPage({ viewport }), { errors: [] as string[] });
  page.setDefaultTimeout(options.timeoutMs ?? 20_000);
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.goto(url);
  return page;
}

/** What a browser test opened: its page, inspector and system, closed in that order after each test. */
export type Opened = { system?: AgentSystem; inspector?: InspectorServer; page?: Page };

/** Registers the clean-up of what each test of the calling file opened, and returns where to put it. */
export function useOpened(): Opened {
  const open: Opened = {};
  afterEach(async () => {
    await open.page?.close();
    await open.inspector?.close();
    await open.system?.dispose();
    Object.assign(open, { system: undefined, inspector: undefined, page: undefined });
  });
  return open;
}
