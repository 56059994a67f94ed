import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { loadRecording, RecordedSource } from '../../src/inspector/recorded-source.ts';
import { serveInspector, startInspector } from '../../src/inspector/server.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fixturePath } from '../replay/scenarios.ts';
import { GateProvider, gatedSystem, settle } from '../support/controllable.ts';
import {
  describeInChromium,
  hasChromium,
  lit,
  noChromium,
  openWatchedPage,
  useOpened,
  type WatchedPage,
  withScreenshot,
} from './browser.ts';

const open = useOpened();

async function openPage(url: string): Promise<WatchedPage> {
  // The page opens on the board; these tests watch the charts.
  const page = await openWatchedPage(`${url}#charts`);
  open.page = page;
  return page;
}

// In CI the browser must be there (.ci/run installs it): a missing one fails rather than skips.
it('has Chromium when it runs in CI (where a missing browser must fail, not skip)', () => {
  expect(process.env.CI === 'true' && !hasChromium ? noChromium : 'ok').toBe('ok');
});

describeInChromium('the inspector in Chromium', () => {
  it('draws the step chart live, lights requesting while the model streams and executingTools while a tool runs, and approves from the page', {
    timeout: 60_000,
  }, async () => {
    const { model, tool, system } = gatedSystem('write_note', 'write', {
      permissionMode: 'default',
      approve: 'manual',
    });
    open.system = system;
    open.inspector = await startInspector(system, { decisions: true });
    const agent = await system.createAgent({ id: 'live-agent' });
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'live-step-chart', async () => {
      await page.locator('[data-agent="live-agent"]').waitFor();
      const run = agent.run('Write a note.');
      const request = await model.request(0);
      request.delta('Writing the note');
      // The step chart is drawn from the machine, with its states and labelled transitions.
      const step = page.locator('.chart[data-machine="agent/turn/step"]');
      await step.locator('.state.active[data-state="requesting"]').waitFor();
      expect(await step.locator('.state').count()).toBeGreaterThanOrEqual(7);
      expect(await step.locator('.edge[data-event="model.done"]').count()).toBeGreaterThan(0);
      expect(await step.locator('.accepts').textContent()).toContain('model.done');
      request.toolCall('w1', 'write_note', { value: 'hello' }).done('tool_use');
      // The call waits for approval: the page approves it as the user.
      await page.locator('[data-tab="transcript"]').click();
      await page.locator('[data-call="w1"] [data-decide="approve"]').click();
      await page.locator('[data-tab="charts"]').click();
      await step.locator('.state.active[data-state="executingTools"]').waitFor();
      for (let i = 0; i < 100 && !tool.running.has('w1'); i++) await settle();
      expect(tool.running.has('w1')).toBe(true);
      expect(await lit(page)).toContain('agent/turn/step:executingTools');
      expect(await lit(page)).toContain('agent/turn/step/batch:running');
      expect(await lit(page)).toContain('agent/turn/step/batch/call:w1:running');
      const decided = agent.log().find((event) => event.type === 'approval.decided');
      expect(decided?.data).toMatchObject({ callId: 'w1', outcome: 'allow', by: 'user' });
      tool.finish('w1');
      (await model.request(1)).delta('Done.').done('end_turn');
      await run;
      await page.locator('.chart[data-machine="agent"] .state.active[data-state="ready.idle"]').waitFor();
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });
  });

  it('accepts a plan from the page with the mode to go on in', { timeout: 60_000 }, async () => {
    const model = new GateProvider();
    let n = 0;
    const system = createAgentSystem({
      model,
      ids: () => `id${++n}`,
      projectInstructions: false,
      permissionMode: 'plan',
      approve: 'manual',
    });
    open.system = system;
    open.inspector = await startInspector(system, { decisions: true });
    const agent = await system.createAgent({ id: 'planner' });
    const page = await openPage(open.inspector.url);
    await page.locator('[data-agent="planner"]').waitFor();
    const run = agent.run('Plan the change.');
    (await model.request(0)).toolCall('p1', 'exit_plan_mode', { plan: '1. Edit a.txt' }).done('tool_use');
    await page.locator('[data-tab="transcript"]').click();
    // A plan gets its own answers: accept (default mode), accept and allow edits, keep planning.
    const buttons = page.locator('[data-call="p1"] [data-decide]');
    await buttons.first().waitFor();
    expect(await buttons.evaluateAll((all) => all.map((b) => (b as HTMLElement).dataset.decide))).toEqual([
      'accept plan',
      'accept, allow edits',
      'keep planning',
    ]);
    await page.locator('[data-call="p1"] [data-decide="accept, allow edits"]').click();
    (await model.request(1)).delta('Planned.').done('end_turn');
    await run;
    expect(agent.permissionMode).toBe('accept-edits');
    const changed = agent.log().find((event) => event.type === 'mode.changed');
    expect(changed?.data).toMatchObject({
      from: 'plan',
      to: 'accept-edits',
      by: 'plan',
      plan: '1. Edit a.txt',
    });
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });

  it('travels on a recording to a seq inside a parallel batch and shows the states computed there', {
    timeout: 60_000,
  }, async () => {
    const { sessions } = await loadRecording(fixturePath('parallel-retry-unknown'));
    open.inspector = await serveInspector(new RecordedSource(sessions, 'recording'));
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'time-travel-parallel', async () => {
      await page.locator('#seq').waitFor();
      // seq 12: both lookups have started (tool.started c1 and c2), neither has a result yet.
      await page.locator('#seq').fill('12');
      await page.locator('.seq-label', { hasText: 'seq 12 / 43 · tool.started' }).waitFor();
      await page
        .locator('.chart[data-machine="agent/turn/step/batch"] .state.active[data-state="running"]')
        .waitFor();
      expect((await lit(page)).sort()).toEqual(
        [
          'agent:ready',
          'agent:ready.running',
          'agent/turn:stepping',
          'agent/turn/step:executingTools',
          'agent/turn/step/batch:running',
          'agent/turn/step/batch/call:c1:running',
          'agent/turn/step/batch/call:c2:running',
        ].sort(),
      );
      // The transcript is cut at seq 12: no results yet.
      await page.locator('[data-tab="transcript"]').click();
      await page.waitForFunction(() => document.querySelectorAll('#content .tool').length === 2);
      expect(await page.locator('.tool .result').count()).toBe(0);
      // The events view says plainly that a recording has no live events.
      await page.locator('[data-tab="inspection"]').click();
      await page.locator('#content', { hasText: 'No live events for a recording' }).waitFor();
      // The log view has headers, filters and an explanation on every error badge.
      await page.locator('#seq').fill('43');
      await page.locator('[data-tab="log"]').click();
      await page.locator('table.log th').first().waitFor();
      expect(await page.locator('table.log th').allTextContents()).toEqual([
        'seq',
        'time',
        'turn',
        'step',
        'type',
        'data',
      ]);
      await page.locator('select[data-filter="type"]').selectOption('tool.result');
      await page.waitForFunction(() => document.querySelectorAll('table.log tbody tr').length === 5);
      const errors = page.locator('table.log .why .explain');
      expect(await errors.count()).toBe(2);
      expect(await errors.first().textContent()).toContain('The tool failed');
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });
  });

  it('renders 100 live agents in the overview, each with its step state, and filters them', {
    timeout: 60_000,
  }, async () => {
    const model = new GateProvider();
    let n = 0;
    const system = createAgentSystem({ model, ids: () => `id${++n}`, projectInstructions: false });
    open.system = system;
    open.inspector = await startInspector(system);
    const agents: Agent[] = [];
    for (let i = 0; i < 100; i++)
      agents.push(await system.createAgent({ id: `agent-${String(i).padStart(3, '0')}` }));
    const page = await openPage(open.inspector.url);
    await withScreenshot(page, 'hundred-agents', async () => {
      for (const agent of agents) void agent.run('go').catch(() => undefined);
      await page.locator('.agent', { hasText: 'agent-099' }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('#agents .agent').length === 100);
      expect(await page.locator('#agent-count').textContent()).toBe('100 of 100');
      await page.waitForFunction(
        () =>
          document.querySelectorAll('#agents .note').length === 100 &&
          Array.from(document.querySelectorAll('#agents .note')).every((note) =>
            note.textContent?.includes('step requesting'),
          ),
      );
      await page.locator('#agent-filter').fill('agent-04');
      await page.waitForFunction(() => document.querySelectorAll('#agents .agent').length === 10);
      expect(await page.locator('#agent-count').textContent()).toBe('10 of 100');
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    });
  });

  it('shows a time no Date can hold (a hostile log) as its number, in the log and the agents tab', async () => {
    const { sessions } = await loadRecording(fixturePath('parallel-retry-unknown'));
    const hostile = sessions.map((session) => ({
      ...session,
      events: session.events.map((event) => ({ ...event, ts: event.ts + 1e17 })),
    }));
    open.inspector = await serveInspector(new RecordedSource(hostile, 'recording'));
    const page = await openPage(open.inspector.url);
    await page.locator('#seq').waitFor();
    await page.locator('[data-tab="log"]').click();
    await page.locator('table.log tbody tr').first().waitFor();
    const first = await page.locator('table.log tbody tr td.time').first().textContent();
    expect(first).toBe(String(hostile[0]!.events[0]!.ts));
    await page.locator('[data-tab="agents"]').click();
    await page.locator('.agent-tree').waitFor();
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });
});
