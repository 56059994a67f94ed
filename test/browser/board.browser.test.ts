// The Board tab in Chromium, on a live system (test/support/board-run.ts): the page opens on it; each row
// shows the agent's task, its state in words and what it costs; the `task` subagent sits under its parent
// and names the call that started it; the job reads x of N with its failure and the task not started;
// disposed agents are greyed, below the live ones; the filter by state and by text; a click on a row
// selects the agent and shows its charts. Then everything is let go, and the board shows it all done.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { type InspectorServer, startInspector } from '../../src/inspector/server.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import { boardRun, waitingCommand } from '../support/board-run.ts';
import { TickingSimulatedClock } from '../support/mail-kit.ts';
import { describeInChromium, sharedBrowser, withScreenshot } from './browser.ts';

const open: { dirs: string[]; inspector?: InspectorServer; page?: Page; system?: AgentSystem } = { dirs: [] };
afterEach(async () => {
  await open.page?.close();
  await open.inspector?.close();
  await open.system?.dispose();
  for (const dir of open.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Each row as a person reads it: indent, task, status, what it does (the time it took cut off). */
const rows = (page: Page) =>
  page.locator('.board-row').evaluateAll((nodes) =>
    nodes.map((node) => {
      const row = node as HTMLElement;
      const text = (selector: string) => row.querySelector(selector)?.textContent ?? '';
      const indent = row.style.marginLeft === '0px' ? '' : '  ';
      const disposed = row.classList.contains('disposed') ? ' (disposed)' : '';
      const doing = text('.doing').replace(/ for \d+ (s|min \d+ s)$/, ' for …');
      return `${indent}${text('.task')} | ${text('.status')}${disposed} | ${doing}`;
    }),
  );

describeInChromium('the Board tab in Chromium', () => {
  it('opens on the board of a running system, filters it, and goes to an agent', {
    timeout: 90_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentchart-board-'));
    const cwd = await mkdtemp(join(tmpdir(), 'agentchart-board-work-'));
    open.dirs.push(dir, cwd);
    const { system, start } = boardRun({ dir, cwd, clock: new TickingSimulatedClock(1_000) });
    open.system = system;
    open.inspector = await startInspector(system);
    const page = await sharedBrowser().newPage({ viewport: { width: 1400, height: 1000 } });
    open.page = page;
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(open.inspector.url);
    // Watched from before it starts: the inspector sees agents end only while a page is open.
    await page.locator('#conn', { hasText: 'connected' }).waitFor();
    const run = await start();
    const child = run.parent.log().find((event) => event.type === 'agent.spawned')!.data.childSessionId;
    await withScreenshot(page, 'board-live', async () => {
      expect(await page.locator('#tabs button.on').textContent()).toBe('Board');
      // The page hears of each event as it comes: wait until it has them all.
      await page
        .locator('.board-job[data-job="job-1"]', {
          hasText: /^job-1: 2\/4 finished · 1 failed · 1 running · 1 not started$/,
        })
        .waitFor();
      await expect
        .poll(() => rows(page), { timeout: 20_000 })
        .toEqual([
          'Fix the failing tests | running | running task Write the notes for …',
          '  Write the notes | waiting | waiting for your approval of write_file notes.txt for …',
          `Run the test suite | running | running bash \`${waitingCommand}\` for …`,
          'Write the changelog | waiting | waiting for your approval of write_file CHANGELOG.md for …',
          'Summarise README.md | done (disposed) | done: completed',
          'Translate docs/intro.md | failed (disposed) | failed: model_error',
        ]);
      // The subagent names the call that started it; a job's task its place; each row its tokens and cost.
      const meta = (id: string) => page.locator(`[data-board-agent="${id}"] .meta`).textContent();
      expect(await meta(String(child))).toMatch(
        new RegExp(
          `^${child} · started by task call t1 of parent · turn 1 step 1 · 10 in · 5 out tokens · ≈ \\$0\\.0001 · \\d+ s$`,
        ),
      );
      expect(
        await page.locator('.board-row', { hasText: 'Write the changelog' }).locator('.meta').textContent(),
      ).toContain(' · job-1 task 3 of 4 · ');

      // The filter by state, then by text (a tool's command), then all again.
      await page.locator('#board-state').selectOption('waiting');
      await page.waitForFunction(() => document.querySelectorAll('.board-row').length === 2);
      expect((await rows(page)).map((row) => row.split(' | ')[0]!.trim())).toEqual([
        'Write the notes',
        'Write the changelog',
      ]);
      expect(await page.locator('#board-count').textContent()).toBe('2 of 6 agents');
      await page.locator('#board-state').selectOption('all');
      await page.locator('#board-filter').fill('sleep 0.05');
      await page.waitForFunction(() => document.querySelectorAll('.board-row').length === 1);
      expect(await page.locator('.board-row').getAttribute('data-board-agent')).toBe('runner');
      await page.locator('#board-filter').fill('');

      // A click on a row selects the agent and shows its charts.
      await page.locator(`[data-board-agent="${child}"]`).click();
      await page.locator('#tabs button.on', { hasText: 'Charts' }).waitFor();
      await page.locator(`.agent.selected[data-agent="${child}"]`).waitFor();
      expect(await page.locator('#board-bar').isHidden()).toBe(true);
      await page.locator('[data-tab="board"]').click();
      await page.locator(`.board-row.selected[data-board-agent="${child}"]`).waitFor();

      // Everything let go: the job finishes 4 of 4, and the agents say they are done.
      await run.release();
      expect((await run.job.result).map((result) => result.reason)).toEqual([
        'completed',
        'model_error',
        'completed',
        'completed',
      ]);
      await page.locator('.board-job', { hasText: 'job-1: 4/4 finished · 1 failed' }).waitFor();
      await page.locator('[data-board-agent="parent"][data-status="done"]').waitFor();
      await page.locator('[data-board-agent="runner"][data-status="done"]').waitFor();
      // The task's subagent is disposed once its call returned: greyed, still under its parent.
      await expect
        .poll(() => rows(page), { timeout: 20_000 })
        .toEqual([
          'Fix the failing tests | done | done: completed',
          '  Write the notes | done (disposed) | done: completed',
          'Run the test suite | done | done: completed',
          'Summarise README.md | done (disposed) | done: completed',
          'Translate docs/intro.md | failed (disposed) | failed: model_error',
          'Write the changelog | done (disposed) | done: completed',
          'Tag the release | done (disposed) | done: completed',
        ]);
      // The list on the left too: disposed roots greyed, below the live ones; a subagent under its parent.
      const listed = await page
        .locator('#agents .agent')
        .evaluateAll((nodes) =>
          nodes.map((node) => [
            (node as HTMLElement).dataset.agent,
            node.classList.contains('disposed'),
            (node as HTMLElement).style.marginLeft,
          ]),
        );
      const roots = listed.filter(([, , margin]) => margin === '0px').map(([, disposed]) => disposed);
      expect(roots).toEqual([false, false, true, true, true, true]);
      expect(listed[listed.findIndex(([id]) => id === 'parent') + 1]).toEqual([child, true, '16px']);
      expect(errors).toEqual([]);
    });
  });
});
