// npm run screenshot: regenerates the inspector's pictures in docs/, both at 1,280 × 800 —
// - docs/inspector-charts.png, the chart view: the parallel-batch fixture travelled to seq 12, where both
//   lookups run side by side: the tool batch's chart comes first (the innermost machine running), fitted
//   to its pane, with `running` lit and the regions that are not active collapsed;
// - docs/inspector-board.png, the board of a live system (test/support/board-run.ts): a subagent
//   waiting for approval under its parent's task call, a bash command running, a job of four half done.
// Needs Debian's Chromium at /usr/bin/chromium (apt-get install -y chromium).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { loadRecording, RecordedSource } from '../src/inspector/recorded-source.ts';
import { serveInspector, startInspector } from '../src/inspector/server.ts';
import { launchChromium } from '../test/browser/browser.ts';
import { boardRun } from '../test/support/board-run.ts';

async function chartsPicture(browser: Browser): Promise<void> {
  const out = 'docs/inspector-charts.png';
  const { sessions } = await loadRecording('test/fixtures/replay/parallel-retry-unknown.jsonl');
  const server = await serveInspector(
    new RecordedSource(sessions, 'agentchart — parallel-retry-unknown.jsonl (recorded)'),
  );
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}#charts`);
    await page.locator('#seq').waitFor();
    await page.locator('#seq').fill('12');
    await page
      .locator('.chart[data-machine="agent/turn/step/batch"] .state.active[data-state="running"]')
      .waitFor();
    await page.screenshot({ path: out });
    console.log(`wrote ${out}`);
  } finally {
    await server.close();
  }
}

async function boardPicture(browser: Browser): Promise<void> {
  const out = 'docs/inspector-board.png';
  const dir = await mkdtemp(join(tmpdir(), 'agentchart-board-shot-'));
  const cwd = await mkdtemp(join(tmpdir(), 'agentchart-board-work-'));
  const { system, start } = boardRun({ dir, cwd });
  const inspector = await startInspector(system, { title: 'agentchart — live' });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(inspector.url);
    await page.locator('#conn', { hasText: 'connected' }).waitFor();
    const run = await start();
    await page.waitForFunction(() => document.querySelectorAll('.board-row').length === 6);
    // A few seconds in, so the picture shows how long each has been at it.
    await page.locator('[data-board-agent="runner"] .doing', { hasText: ' for 3 s' }).waitFor();
    await page.screenshot({ path: out });
    console.log(`wrote ${out}`);
    await run.release();
    await run.job.result;
  } finally {
    await inspector.close();
    await system.dispose();
    for (const folder of [dir, cwd]) await rm(folder, { recursive: true, force: true });
  }
}

const browser = await launchChromium();
try {
  await chartsPicture(browser);
  await boardPicture(browser);
} finally {
  await browser.close();
}
