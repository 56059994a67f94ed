// The Agents tab in Chromium: a supervisor with two background children run live on a scripted model,
// watched from before it starts — the tree with each child's task, state and result, and the mail between
// them as it comes (one message of it is markup, shown as text); time travel cuts both at the time of the
// travelled-to event; then the same run opened as a recording.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { loadRecording, RecordedSource } from '../../src/inspector/recorded-source.ts';
import { type InspectorServer, serveInspector, startInspector } from '../../src/inspector/server.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { sessionFilePath } from '../../src/session/session-files.ts';
import { counterIds, until } from '../support/crash-kit.ts';
import { supervisedFlakyWorker, TickingSimulatedClock } from '../support/mail-kit.ts';
import { hostileText, startSupervisor, supervisorOptions } from '../support/supervisor-run.ts';
import { describeInChromium, openWatchedPage, type WatchedPage, withScreenshot } from './browser.ts';

let dir: string;
const open: { inspectors: InspectorServer[]; page?: Page; system?: AgentSystem } = { inspectors: [] };
afterEach(async () => {
  await open.page?.close();
  for (const inspector of open.inspectors.splice(0)) await inspector.close();
  await open.system?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function openPage(url: string): Promise<WatchedPage> {
  await open.page?.close();
  const page = await openWatchedPage(url);
  open.page = page;
  return page;
}

/** What the tree shows of one agent: relation, agent type, activity, reason. */
const nodeLine = (page: Page, id: string) =>
  page.locator(`[data-agent-node="${id}"] > .head .pill`).allTextContents();
const mailRows = (page: Page) =>
  page.locator('table.mail tbody tr').evaluateAll((rows) =>
    rows.map((row) =>
      Array.from(row.querySelectorAll('td'))
        .slice(1)
        .map((cell) => cell.textContent)
        .join(' | '),
    ),
  );

describeInChromium('the Agents tab in Chromium', () => {
  it('draws the tree and the mail live, cuts them where time travel stands, and shows the recording the same', {
    timeout: 60_000,
  }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentchart-agents-tab-'));
    const system = createAgentSystem({
      ...supervisorOptions(),
      store: fileStore(dir),
      ids: counterIds(),
      clock: new TickingSimulatedClock(1_000),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    open.system = system;
    const live = await startInspector(system);
    open.inspectors.push(live);
    const parent = await system.createAgent({ id: 'parent' });
    const page = await openPage(live.url);
    await withScreenshot(page, 'agents-tab-live', async () => {
      await page.locator('[data-agent="parent"]').waitFor();
      await page.locator('[data-tab="agents"]').click();
      await page.locator('[data-agent-node="parent"]').waitFor();

      // Mid-run: A waits for word, B has reported, the parent's turn waits for A.
      const { childA, childB, goOn } = await startSupervisor(parent);
      await page.locator(`[data-agent-node="${childB}"] .result-text`, { hasText: 'B result' }).waitFor();
      await page.locator(`[data-agent-node="${childA}"] [data-activity="waiting"]`).waitFor();
      await page.locator('[data-agent-node="parent"] [data-activity="waiting"]').waitFor();
      expect(await nodeLine(page, childA)).toEqual(['background', 'waiting']);
      expect(await page.locator(`[data-agent-node="${childA}"] .task`).textContent()).toBe('Waits for word');
      expect(await page.locator(`[data-agent-node="${childA}"] .waiting-for`).textContent()).toBe(
        'waiting for mail (wait_agents)',
      );
      expect(await nodeLine(page, childB)).toEqual(['background', 'reader', 'finished', 'completed']);
      expect(await page.locator('[data-agent-node="parent"] .waiting-for').textContent()).toBe(
        `waiting for its agents ${childA}`,
      );
      // A live agent shows its chart state too.
      expect(await page.locator('[data-agent-node="parent"] .chart-state').textContent()).toContain(
        'turn waitingForAgents',
      );
      const first = await mailRows(page);
      expect(first.map((row) => row.split(' | ').slice(0, 4).join(' | '))).toEqual([
        `${childB} | parent | resultcompleted | B result`,
      ]);
      expect(first[0]).toMatch(/ \| \d\d:\d\d:\d\d\.\d{3}$/); // received, on the injected clock

      // The word from the host; A writes back (markup) and reports; the parent's turn ends.
      await goOn();
      await page.locator('[data-agent-node="parent"] [data-activity="idle"]').waitFor();
      await page.waitForFunction(() => document.querySelectorAll('table.mail tbody tr').length === 4);
      expect(await nodeLine(page, childA)).toEqual(['background', 'finished', 'completed']);
      const rows = await mailRows(page);
      expect(rows.map((row) => row.split(' | ').slice(0, 4).join(' | '))).toEqual([
        `${childB} | parent | resultcompleted | B result`,
        `parent | ${childA} | message by the host | Go on.`,
        `${childA} | parent | message | ${hostileText}`,
        `${childA} | parent | resultcompleted | A result`,
      ]);
      // The markup is text: no element was made of it, and its handler never ran.
      expect(await page.locator('#content img').count()).toBe(0);
      expect(await page.evaluate(() => (window as { hacked?: number }).hacked)).toBeUndefined();

      // Time travel to the parent's message.sent: B's result and the host's word, not yet received.
      const sentSeq = parent.log().find((event) => event.type === 'message.sent')!.seq;
      await page.locator('#seq').fill(String(sentSeq));
      await page.locator('.travel-note', { hasText: `seq ${sentSeq} of parent` }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('table.mail tbody tr').length === 2);
      expect((await mailRows(page))[1]).toMatch(
        new RegExp(`^parent \\| ${childA} \\| message by the host \\| Go on\\. \\| not yet$`),
      );
      expect(await nodeLine(page, childA)).toEqual(['background', 'waiting']);
      expect(page.errors).toEqual([]);
    });

    // The same run as a recording, opened from the parent's log file (its children's logs beside it).
    await system.dispose();
    const { sessions } = await loadRecording(sessionFilePath(dir, 'parent'));
    const recorded = await serveInspector(new RecordedSource(sessions, 'recording'));
    open.inspectors.push(recorded);
    const replayPage = await openPage(recorded.url);
    await withScreenshot(replayPage, 'agents-tab-recorded', async () => {
      await replayPage.locator('[data-tab="agents"]').click();
      await replayPage.waitForFunction(() => document.querySelectorAll('table.mail tbody tr').length === 4);
      expect(await replayPage.locator('[data-agent-node]').evaluateAll((nodes) => nodes.length)).toBe(3);
      expect(await replayPage.locator('.tree-node [data-activity="finished"]').count()).toBe(2);
      expect(await replayPage.locator('table.mail tr.result').count()).toBe(2);
      expect(await replayPage.locator('pre.mail-text').nth(2).textContent()).toBe(hostileText);
      // Selecting B travels to the end of its log, which cuts nothing: the others went on after it.
      await replayPage.locator('.tree-node', { hasText: 'worker B' }).locator('button.id').click();
      await replayPage.locator('.seq-label', { hasText: 'seq 10 / 10' }).waitFor();
      expect(await replayPage.locator('.travel-note').count()).toBe(0);
      expect(await replayPage.locator('table.mail tbody tr').count()).toBe(4);
      // At B's first event nobody has sent anything yet.
      await replayPage.locator('#seq').fill('0');
      await replayPage
        .locator('.empty.no-mail', { hasText: 'No messages between agents by then.' })
        .waitFor();
      expect(await replayPage.locator('.travel-note').textContent()).toContain('(seq 0 of ');
      expect(replayPage.errors).toEqual([]);
    });
  });

  it('shows a supervised child backing off, then restarted and finished, with its restarts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentchart-agents-restart-'));
    const clock = new TickingSimulatedClock(1_000);
    const { model, tools } = supervisedFlakyWorker();
    const system = createAgentSystem({ model, tools, clock, store: fileStore(dir), ids: counterIds() });
    open.system = system;
    const live = await startInspector(system);
    open.inspectors.push(live);
    const parent = await system.createAgent({ id: 'parent' });
    const page = await openPage(live.url);
    await page.locator('[data-agent="parent"]').waitFor();
    await page.locator('[data-tab="agents"]').click();
    const run = parent.run('supervise');
    await until(() => clock.pendingTimers > 0 && parent.children().length === 1, 'the backoff');
    const childId = parent.children()[0]!.id;
    const restarts = page.locator(`[data-agent-node="${childId}"] .restarts`);
    await restarts.filter({ hasText: 'backing off' }).waitFor();
    expect(await restarts.textContent()).toBe(
      'restarts: 1 of 3 — last after model_error: the provider refused (backing off)',
    );
    expect(await page.locator(`[data-agent-node="${childId}"] .waiting-for`).textContent()).toBe(
      'waiting for its restart 1 of 3 after model_error',
    );
    clock.advance(1_000);
    await run;
    await page.locator(`[data-agent-node="${childId}"] [data-activity="finished"]`).waitFor();
    expect(await restarts.textContent()).toBe(
      'restarts: 1 of 3 — last after model_error: the provider refused',
    );
    expect(page.errors).toEqual([]);
  }, 60_000);
});
