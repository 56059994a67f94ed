// Charts you can read, in Chromium at 1,280 × 800: after every transition the active state is inside its
// chart's pane (live, zoomed in, and travelling a recording), the innermost running machine comes first and
// the agent's lifecycle last, and no label of any chart overlaps another label, a state or a line.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { loadRecording, RecordedSource } from '../../src/inspector/recorded-source.ts';
import { serveInspector, startInspector } from '../../src/inspector/server.ts';
import { fixturePath } from '../replay/scenarios.ts';
import { gatedSystem, settle } from '../support/controllable.ts';
import {
  describeInChromium,
  openWatchedPage,
  useOpened,
  type WatchedPage,
  withScreenshot,
} from './browser.ts';
import {
  activeOutOfView,
  allStatesInView,
  chartOrder,
  labelOverlaps,
  linesThroughLabels,
} from './chart-geometry.ts';

const open = useOpened();

async function openPage(url: string): Promise<WatchedPage> {
  const page = await openWatchedPage(`${url}#charts`, { width: 1280, height: 800 });
  open.page = page;
  return page;
}
const litState = (page: Page, machine: string, state: string) =>
  page.locator(`.chart[data-machine="${machine}"] .state.active[data-state="${state}"]`).waitFor();

describeInChromium('charts in Chromium at 1,280 × 800', () => {
  it('keeps the active state of every chart in view through a live run with a tool call, zoomed in too', {
    timeout: 60_000,
  }, async () => {
    const { model, tool, system } = gatedSystem('lookup', 'read');
    open.system = system;
    open.inspector = await startInspector(system);
    const agent = await system.createAgent({ id: 'reader' });
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'charts-live-in-view', async () => {
      await litState(page, 'agent', 'ready.idle');
      await expect.poll(() => activeOutOfView(page), { timeout: 20_000 }).toEqual([]);
      await expect.poll(() => chartOrder(page), { timeout: 20_000 }).toEqual(['agent']);

      const run = agent.run('Look it up.');
      const request = await model.request(0);
      request.delta('Looking');
      await litState(page, 'agent/turn/step', 'requesting');
      // The batch waits idle inside the step: it comes after the running machines.
      await expect
        .poll(() => chartOrder(page), { timeout: 20_000 })
        .toEqual(['agent/turn/step', 'agent/turn', 'agent/turn/step/batch', 'agent']);
      await expect.poll(() => activeOutOfView(page), { timeout: 20_000 }).toEqual([]);
      // The user zooms the step chart in: the zoom stays, and the view follows the active state.
      const stepView = page.locator('.chart[data-machine="agent/turn/step"] svg');
      const widthOf = async () => Number((await stepView.getAttribute('viewBox'))!.split(' ')[2]);
      const unzoomed = await widthOf();
      for (let i = 0; i < 4; i++)
        await page.locator('.chart[data-machine="agent/turn/step"] [data-view="in"]').click();
      // Each click redraws on the page's next frame: wait until all four have.
      await expect.poll(widthOf, { timeout: 20_000 }).toBeCloseTo(unzoomed / 1.25 ** 4, 0);
      const zoomed = await stepView.getAttribute('viewBox');
      await expect.poll(() => activeOutOfView(page), { timeout: 20_000 }).toEqual([]);

      request.toolCall('c1', 'lookup', { value: 'x' }).done('tool_use');
      await litState(page, 'agent/turn/step/batch', 'running');
      for (let i = 0; i < 100 && !tool.running.has('c1'); i++) await settle();
      await litState(page, 'agent/turn/step', 'executingTools');
      await litState(page, 'agent/turn/step/batch/call:c1', 'running');
      await expect
        .poll(() => chartOrder(page), { timeout: 20_000 })
        .toEqual([
          'agent/turn/step/batch',
          'agent/turn/step',
          'agent/turn',
          'agent/turn/step/batch/call:c1',
          'agent',
        ]);
      await expect.poll(() => activeOutOfView(page), { timeout: 20_000 }).toEqual([]);
      const followed = await page
        .locator('.chart[data-machine="agent/turn/step"] svg')
        .getAttribute('viewBox');
      expect(followed!.split(' ').slice(2)).toEqual(zoomed!.split(' ').slice(2));

      tool.finish('c1');
      (await model.request(1)).delta('Found.').done('end_turn');
      await run;
      await litState(page, 'agent', 'ready.idle');
      await expect.poll(() => chartOrder(page), { timeout: 20_000 }).toEqual(['agent']);
      await expect.poll(() => activeOutOfView(page), { timeout: 20_000 }).toEqual([]);
      expect(page.errors).toEqual([]);
    });
  });

  it('keeps the active states in view at every seq of a recording with a parallel batch', {
    timeout: 120_000,
  }, async () => {
    const { sessions } = await loadRecording(fixturePath('parallel-retry-unknown'));
    open.inspector = await serveInspector(new RecordedSource(sessions, 'recording'));
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'charts-travel-in-view', async () => {
      await page.locator('.seq-label', { hasText: 'seq 43 / 43 · ' }).waitFor();
      const checked: string[] = [];
      for (let seq = 0; seq <= 43; seq++) {
        await page.locator('#seq').fill(String(seq));
        await page.locator('.seq-label', { hasText: `seq ${seq} / 43 · ` }).waitFor();
        await page.locator(`.travel-note:has-text("after seq ${seq} "), .log-position`).first().waitFor();
        if ((await page.locator('.log-position').count()) > 0) continue;
        checked.push((await chartOrder(page))[0]!);
        expect({ seq, out: await activeOutOfView(page) }).toEqual({ seq, out: [] });
        expect((await chartOrder(page)).at(-1)).toBe('agent');
      }
      // Each seq with states was checked, and the innermost machine led wherever one ran.
      expect(checked.length).toBe(44);
      expect(checked.filter((key) => key === 'agent/turn/step/batch').length).toBeGreaterThan(0);
      expect(page.errors).toEqual([]);
    });
  });

  it('draws no label over another label, a state or a line, in every chart, with its regions collapsed and open', {
    timeout: 60_000,
  }, async () => {
    const { sessions } = await loadRecording(fixturePath('parallel-retry-unknown'));
    open.inspector = await serveInspector(new RecordedSource(sessions, 'recording'));
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'charts-label-overlaps', async () => {
      await page.locator('#seq').fill('12');
      await litState(page, 'agent/turn/step/batch', 'running');
      const charts = [
        'agent',
        'agent/turn',
        'agent/turn/step',
        'agent/turn/step/batch',
        'agent/turn/step/batch/call:c1',
      ];
      for (const chart of charts)
        expect({ chart, overlaps: await labelOverlaps(page, chart) }).toEqual({ chart, overlaps: [] });
      for (const chart of charts)
        expect({ chart, crossed: await linesThroughLabels(page, chart) }).toEqual({ chart, crossed: [] });
      // Every collapsed region opened: the whole chart.
      for (const chart of charts) {
        const expand = page.locator(`.chart[data-machine="${chart}"] [data-view="expand"]`);
        if ((await expand.count()) === 0) continue;
        await expand.click();
        await page
          .locator(`.chart[data-machine="${chart}"] [data-view="expand"]`, { hasText: 'active regions' })
          .waitFor();
        expect(await page.locator(`.chart[data-machine="${chart}"] .state.collapsed`).count()).toBe(0);
        expect({ chart, overlaps: await labelOverlaps(page, chart) }).toEqual({ chart, overlaps: [] });
        expect({ chart, crossed: await linesThroughLabels(page, chart) }).toEqual({ chart, crossed: [] });
      }
      expect(await page.locator('.chart .edge text').count()).toBeGreaterThan(100);
      expect(page.errors).toEqual([]);
    });
  });

  it('zooms with the buttons and ctrl + wheel, pans by dragging, fits the whole chart, and opens a collapsed region', {
    timeout: 60_000,
  }, async () => {
    const { sessions } = await loadRecording(fixturePath('parallel-retry-unknown'));
    open.inspector = await serveInspector(new RecordedSource(sessions, 'recording'));
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'charts-zoom-pan', async () => {
      await page.locator('#seq').fill('12');
      await litState(page, 'agent/turn', 'stepping');
      const turn = page.locator('.chart[data-machine="agent/turn"]');
      const svg = turn.locator('svg.chart-svg');
      const viewBox = async () => (await svg.getAttribute('viewBox'))!.split(' ').map(Number);
      // The turn chart is too wide to read whole in this pane: it opens part of it, on its active state.
      expect(await allStatesInView(page, 'agent/turn')).toBe(false);
      await turn.locator('[data-view="fit"]').click();
      await expect.poll(() => allStatesInView(page, 'agent/turn')).toBe(true);
      const fitted = await viewBox();
      await turn.locator('[data-view="in"]').click();
      await expect.poll(async () => (await viewBox())[2]).toBeCloseTo(fitted[2]! / 1.25, 0);
      await turn.scrollIntoViewIfNeeded();
      const box = (await svg.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, -100);
      await page.keyboard.up('Control');
      await expect.poll(async () => (await viewBox())[2]).toBeCloseTo(fitted[2]! / 1.25 / 1.25, 0);
      const before = await viewBox();
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2, { steps: 4 });
      await page.mouse.up();
      await expect.poll(async () => (await viewBox())[0]).toBeGreaterThan(before[0]! + 50);
      expect((await viewBox())[2]).toBeCloseTo(before[2]!, 1);
      // A double-click opens the agent chart's collapsed regions; the button closes them again.
      const agent = page.locator('.chart[data-machine="agent"]');
      expect(await agent.locator('.state.collapsed').count()).toBe(2);
      await agent.locator('.state.collapsed[data-state="disposing"]').dblclick();
      await agent.locator('[data-view="expand"]', { hasText: 'active regions' }).waitFor();
      expect(await agent.locator('.state.collapsed').count()).toBe(0);
      expect(await agent.locator('.state[data-state="disposing.flushing"]').count()).toBe(1);
      await agent.locator('[data-view="expand"]').click();
      await agent.locator('[data-view="expand"]', { hasText: 'all states' }).waitFor();
      expect(await agent.locator('.state.collapsed').count()).toBe(2);
      expect(page.errors).toEqual([]);
    });
  });
});
