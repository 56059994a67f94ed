// Cancel and dispose while the summarising request streams: the half summary is dropped, the turn ends
// `canceled`, the log stays valid and a compaction the host asked for learns that it was canceled.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { repair } from '../../src/session/repair.ts';
import { GateProvider, settle } from '../support/controllable.ts';
import { counterIds, echoTool } from '../support/crash-kit.ts';
import { withWindow } from '../support/window-model.ts';

/**
 * An agent on a 1,000-token window whose first turn is answered; the second turn's first step reports
 * 900 tokens and asks for a tool, so the turn compacts (automatically) before its second step. Returns
 * once the summarising request is streaming, half a summary in.
 */
async function compacting() {
  const model = withWindow(new GateProvider(), 1_000);
  const store = memoryStore();
  const system = createAgentSystem({
    model,
    tools: [echoTool],
    store,
    clock: new SimulatedClock(1_000),
    ids: counterIds(),
    projectInstructions: false,
    permissionMode: 'bypass',
    compaction: { keepRecentTurns: 1 },
  });
  const agent = await system.createAgent({ id: 'c' });
  const first = agent.run('First question');
  (await model.request(0)).answer('First answer.');
  await first;
  const run = agent.run('Second question');
  const step = await model.request(1);
  step.toolCall('e1', 'echo', { text: 'x' }).done('tool_use', { inputTokens: 900, outputTokens: 10 });
  const summary = await model.request(2);
  expect(isCompactionRequest(summary.request)).toBe(true);
  summary.delta('Half a summ');
  await settle();
  return { model, store, system, agent, run, summary };
}

const afterSecondTurnStart = (log: readonly { type: string }[]) =>
  log.slice(log.findLastIndex((event) => event.type === 'turn.start')).map((event) => event.type);

describe('cancel and dispose while compacting', () => {
  it('a cancel aborts the summary, logs no compaction and ends the turn canceled', async () => {
    const { model, store, system, agent, run, summary } = await compacting();
    expect(agent.snapshot().children[0]?.value).toBe('compacting');
    agent.cancel();
    expect(await run).toMatchObject({ reason: 'canceled' });
    expect(summary.aborted).toBe(true);
    const log = agent.log();
    expect(afterSecondTurnStart(log)).toEqual([
      'turn.start',
      'inbox.claimed',
      'user.message',
      'step.start',
      'assistant.message',
      'tool.call',
      'approval.decided',
      'tool.started',
      'tool.result',
      'step.end',
      'cancel.requested',
      'turn.end',
    ]);
    expect(log.at(-1)?.data).toMatchObject({ reason: 'canceled', cause: 'user' });
    expect((await store.load('c')).events).toEqual(log);
    expect(repair(log, { now: () => 0 }).appended).toEqual([]);
    // The next turn compacts first: the window is still full.
    const next = agent.run('Third question');
    expect(isCompactionRequest((await model.request(3)).request)).toBe(true);
    (await model.request(3)).answer('Summary.');
    (await model.request(4)).answer('Third answer.');
    expect(await next).toMatchObject({ reason: 'completed', text: 'Third answer.' });
    await system.dispose();
  });

  it('a dispose aborts the summary, ends the turn canceled by disposed, and settles a pending agent.compact', async () => {
    const { store, agent, run, summary } = await compacting();
    const asked = agent.compact();
    await agent.dispose();
    expect(summary.aborted).toBe(true);
    expect(await run).toMatchObject({ reason: 'canceled' });
    expect(await asked).toEqual({ compacted: false, reason: 'canceled' });
    const log = agent.log();
    expect(log.slice(-2).map((event) => [event.type, event.data.cause ?? event.data.reason])).toEqual([
      ['turn.end', 'disposed'],
      ['session.end', 'disposed'],
    ]);
    expect(log.filter((event) => event.type === 'compaction')).toEqual([]);
    expect((await store.load('c')).events).toEqual(log);
    expect(repair(log, { now: () => 0 }).appended).toEqual([]);
  });

  it('a cancel while a manual compaction streams settles it as canceled', async () => {
    const model = withWindow(new GateProvider(), 1_000);
    const system = createAgentSystem({ model, ids: counterIds(), projectInstructions: false });
    const agent = await system.createAgent({ id: 'm' });
    const first = agent.run('one');
    (await model.request(0)).answer('One.');
    await first;
    const second = agent.run('two');
    (await model.request(1)).answer('Two.');
    await second;
    const asked = agent.compact();
    const summary = await model.request(2);
    expect(isCompactionRequest(summary.request)).toBe(true);
    agent.cancel();
    expect(await asked).toEqual({ compacted: false, reason: 'canceled' });
    await agent.whenIdle();
    expect(
      agent
        .log()
        .slice(-3)
        .map((event) => event.type),
    ).toEqual(['turn.start', 'cancel.requested', 'turn.end']);
    expect(agent.log().at(-1)?.data).toMatchObject({ reason: 'canceled', cause: 'user' });
    await system.dispose();
  });
});
