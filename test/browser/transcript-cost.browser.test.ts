import { expect, it } from 'vitest';
import { formatDollars } from '../../src/cli/terminal/render.ts';
import { startInspector } from '../../src/inspector/server.ts';
import { estimateCost } from '../../src/providers/prices.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { describeInChromium, sharedBrowser, withScreenshot } from './browser.ts';

const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const cached = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 9000, cacheWriteTokens: 500 };

describeInChromium("the inspector's turn line in Chromium", () => {
  it('shows cache writes, cache reads and the estimate with recorded prices, and no estimate without', {
    timeout: 60_000,
  }, async () => {
    let n = 0;
    const system = createAgentSystem({
      model: scripted([{ text: 'Cached answer.', usage: cached }], { prices }),
      ids: () => `id${++n}`,
      projectInstructions: false,
    });
    const unpriced = createAgentSystem({
      model: scripted([{ text: 'Plain answer.' }]),
      ids: () => `un${++n}`,
      projectInstructions: false,
    });
    const inspector = await startInspector(system);
    const page = await sharedBrowser().newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const agent = await system.createAgent({ id: 'priced' });
      await agent.run('Answer from the cache.');
      await page.goto(inspector.url);
      await withScreenshot(page, 'transcript-cost', async () => {
        await page.locator('[data-agent="priced"]').click();
        await page.locator('[data-tab="transcript"]').click();
        const line = page.locator('.note.turn-end');
        await line.waitFor();
        const estimate = formatDollars(estimateCost(cached, prices));
        expect(estimate).toBe('$0.0106');
        expect(await line.textContent()).toBe(
          `Turn 1 ended: completed · 1000 in · cache write 500 · cache read 9000 · 200 out tokens · ≈ ${estimate}`,
        );
      });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await inspector.close();
      await system.dispose();
    }
    // Without recorded prices the line keeps to tokens, and has no cache split when nothing was cached.
    const inspectorB = await startInspector(unpriced);
    const pageB = await sharedBrowser().newPage();
    try {
      const agent = await unpriced.createAgent({ id: 'unpriced' });
      await agent.run('Answer.');
      await pageB.goto(inspectorB.url);
      await pageB.locator('[data-agent="unpriced"]').click();
      await pageB.locator('[data-tab="transcript"]').click();
      const line = pageB.locator('.note.turn-end');
      await line.waitFor();
      expect(await line.textContent()).toBe('Turn 1 ended: completed · 10 in · 5 out tokens');
    } finally {
      await pageB.close();
      await inspectorB.close();
      await unpriced.dispose();
    }
  });
});
