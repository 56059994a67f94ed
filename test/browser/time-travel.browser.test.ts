// Time travel in Chromium on the demo's own recording: `agentchart demo --keep` writes it, `agentchart inspect
// <its log>` serves it (both the real commands, in-process), and the page travels to the last seq and draws
// the states there. A tampered copy the runtime cannot re-run to its end shows the banner with the reason
// and, where no states exist, the position the log records; a travel or log request that fails says so.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectCommand } from '../../src/cli/commands/inspect.ts';
import { readLog } from '../../src/session/log-text.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { runCli } from '../cli/cli-harness.ts';
import { hasChromium, launchChromium, lit, noChromium, withScreenshot } from './browser.ts';

const folders: string[] = [];
let browser: Browser;
let log: string;
let events: LogEvent[];

/** Serves `file` with the real `agentchart inspect FILE` until `work` is done. */
async function inspect(file: string, work: (url: string) => Promise<void>): Promise<void> {
  const stop = new AbortController();
  let ready!: (url: string) => void;
  const served = new Promise<string>((resolve) => (ready = resolve));
  const quiet = { write: () => true };
  const exit = inspectCommand(
    { file, port: 0, signal: stop.signal, onReady: ready },
    { stdout: quiet, stderr: quiet, cwd: process.cwd() },
  );
  try {
    await work(
      await Promise.race([served, exit.then(() => Promise.reject(new Error('inspect ended early')))]),
    );
  } finally {
    stop.abort();
    expect(await exit).toBe(0);
  }
}

async function openPage(url: string): Promise<Page & { errors: string[] }> {
  const page = Object.assign(await browser.newPage({ viewport: { width: 1400, height: 1000 } }), {
    errors: [] as string[],
  });
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (error) => page.errors.push(error.message));
  // The page opens on the board; these tests watch the charts.
  await page.goto(`${url}#charts`);
  return page;
}

const seqLabel = (page: Page, seq: number, last: number) =>
  page.locator('.seq-label', { hasText: `seq ${seq} / ${last} · ` }).waitFor();

describe.skipIf(!hasChromium)(
  `time travel in Chromium on the demo's recording${hasChromium ? '' : ` — skipped: ${noChromium}`}`,
  () => {
    beforeAll(async () => {
      const demo = await runCli(['demo', '--keep']);
      expect(demo.code).toBe(0);
      log = /^Session log: (.+\.jsonl)$/m.exec(demo.stderr + demo.stdout)![1]!;
      folders.push(dirname(log));
      events = await readLog(log);
      browser = await launchChromium();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      for (const folder of folders) await rm(folder, { recursive: true, force: true });
    });

    it('travels to the last seq and draws the active states there, then into the parallel reads', {
      timeout: 120_000,
    }, async () => {
      const last = events.length - 1;
      expect(events[last]!.type).toBe('session.end');
      await inspect(log, async (url) => {
        const page = await openPage(url);
        await withScreenshot(page, 'demo-travel-last', async () => {
          // A recording opens at its last seq.
          await seqLabel(page, last, last);
          await page.locator('.chart[data-machine="agent"] .state.active').first().waitFor();
          expect((await lit(page)).sort()).toEqual(['agent:disposing', 'agent:disposing.flushing']);
          expect(await page.locator('#travel-banner').isHidden()).toBe(true);
          expect(await page.locator('.log-position').count()).toBe(0);

          // The first step's five calls run side by side: the batch and every call are lit.
          const started = events.filter((event) => event.type === 'tool.started').slice(0, 5);
          const seq = started.at(-1)!.seq;
          await page.locator('#seq').fill(String(seq));
          await seqLabel(page, seq, last);
          await page
            .locator('.chart[data-machine="agent/turn/step/batch"] .state.active[data-state="running"]')
            .waitFor();
          const calls = started.map((event) => `agent/turn/step/batch/call:${event.data.callId}:running`);
          expect((await lit(page)).sort()).toEqual(
            [
              'agent:ready',
              'agent:ready.running',
              'agent/turn:stepping',
              'agent/turn/step:executingTools',
              'agent/turn/step/batch:running',
              ...calls,
            ].sort(),
          );
          expect(page.errors).toEqual([]);
          await page.close();
        });
      });
    });

    it('on a tampered copy shows the banner with the reason and the log position where no states exist', {
      timeout: 120_000,
    }, async () => {
      // The model's edit renamed to a tool the recording never offered: the re-run refuses it unrun.
      const folder = await mkdtemp(join(tmpdir(), 'agentchart-travel-tampered-'));
      folders.push(folder);
      const tampered = join(folder, 'tampered.jsonl');
      const lines = (await readFile(log, 'utf8')).split('\n');
      await writeFile(
        tampered,
        lines
          .map((line, seq) =>
            seq === 0 ? line : line.replaceAll('"name":"edit_file"', '"name":"edit_files"'),
          )
          .join('\n'),
      );
      const edit = events.find((event) => event.type === 'tool.call' && event.data.name === 'edit_file')!;
      const diverged = edit.seq + 1;
      expect(events[diverged]!.type).toBe('approval.decided');
      const reason = `the re-run went another way at seq ${diverged} (approval.decided): the runtime wrote tool.result where the recording has approval.decided`;
      const last = events.length - 1;
      await inspect(tampered, async (url) => {
        const page = await openPage(url);
        await withScreenshot(page, 'demo-travel-tampered', async () => {
          await seqLabel(page, last, last);
          const banner = page.locator('#travel-banner[role="alert"], #travel-banner [role="alert"]');
          await banner.waitFor();
          expect(await banner.locator('.why-not').textContent()).toBe(`Why: ${reason}. `);
          expect(await banner.textContent()).toContain(`States are shown up to seq ${diverged - 1};`);
          // No charts at the last seq, and nothing computing: where the log stands instead.
          const position = page.locator(`.log-position[data-seq="${last}"]`);
          await position.waitFor();
          expect(await page.locator('.chart').count()).toBe(0);
          expect(await page.locator('.computing').count()).toBe(0);
          expect(await position.locator('.pos').allTextContents()).toEqual([
            'event: session.end',
            'turn 1: ended (completed)',
            `step ${events[last - 3]!.step}: done`,
            'the session has ended',
          ]);
          // At the renamed call itself: the call, its state and the decision the log holds.
          await page.locator('#seq').fill(String(diverged + 1));
          await page.locator(`.log-position[data-seq="${diverged + 1}"]`).waitFor();
          expect(await page.locator('.log-position .pos-call').allTextContents()).toEqual([
            `edit_files ${edit.data.callId} running allow by mode: write access is allowed in bypass mode`,
          ]);
          // Before the divergence the states are drawn, and the banner still says where they stop.
          await page.locator('#seq').fill(String(edit.seq));
          await seqLabel(page, edit.seq, last);
          await page.locator('.chart[data-machine="agent/turn/step/batch"] .state.active').waitFor();
          expect((await lit(page)).sort()).toEqual(
            [
              'agent:ready',
              'agent:ready.running',
              'agent/turn/step/batch:idle',
              'agent/turn/step:requesting',
              'agent/turn:stepping',
            ].sort(),
          );
          expect(await banner.isVisible()).toBe(true);
          expect(await page.locator('.log-position').count()).toBe(0);

          // A travel request that cannot reach the server says so; nothing waits for ever.
          await page.route('**/travel?*', (route) => route.abort());
          await page.locator('#seq').fill(String(edit.seq - 1));
          await page.locator('#travel-banner .why-not', { hasText: 'time travel failed' }).waitFor();
          expect(await page.locator('.computing').count()).toBe(0);
          expect(await page.locator('.log-position .note').textContent()).toBe(
            'The log position is not known: the server gave none.',
          );
          expect(page.errors).toEqual([]);
          await page.close();
        });
      });
    });

    it('says so where a log request fails, instead of "Loading the log…"', { timeout: 60_000 }, async () => {
      await inspect(log, async (url) => {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        page.setDefaultTimeout(20_000);
        await page.route('**/api/agents/*/log', (route) => route.abort());
        await page.goto(url);
        await withScreenshot(page, 'demo-log-failed', async () => {
          await page.locator('[data-tab="transcript"]').click();
          const error = page.locator('.log-error');
          await error.waitFor();
          expect(await error.textContent()).toMatch(
            /^The log could not be loaded: the inspector could not be reached \(.+\)$/,
          );
          expect(await page.locator('#content', { hasText: 'Loading the log…' }).count()).toBe(0);
          await page.close();
        });
      });
    });
  },
);
