// A process that stops while a hook runs: what resume does with the session it left
// (docs/sessions-and-replay.md, "Durable waits"). The crash is the log as it stood while the hook waited,
// copied to a fresh store and resumed by a new system.
import { describe, expect, it } from 'vitest';
import type { Hooks } from '../../src/hooks/hook-types.ts';
import { createAgentSystem } from '../../src/index.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';
import { settle } from '../support/controllable.ts';
import { counterIds, echoCall, echoTool, hookTrail, results, steppingClock } from './hook-kit.ts';

/** Runs until `waiting()` says the agent waits, then returns the log as a crash right then leaves it. */
async function crashWhile(hooks: Hooks, waiting: (log: readonly LogEvent[]) => boolean, approve?: 'manual') {
  const store = memoryStore();
  const system = createAgentSystem({
    model: scripted([{ toolCalls: [echoCall('c1', 'x')] }]),
    tools: [echoTool()],
    store,
    ids: counterIds(),
    clock: steppingClock(),
    projectInstructions: false,
    permissionMode: approve ? 'default' : 'bypass',
    hooks,
    ...(approve ? { approve } : {}),
  });
  const agent = await system.createAgent({ id: 'crashed' });
  void agent.run('go').catch(() => undefined);
  for (let i = 0; i < 100 && !waiting(agent.log()); i++) await settle();
  expect(waiting(agent.log())).toBe(true);
  const events = [...agent.log()];
  // The process is gone: nothing of it runs on (its hook is simply never answered).
  await system.dispose().catch(() => undefined);
  const fresh = memoryStore();
  await fresh.create('crashed');
  await fresh.append('crashed', events);
  return fresh;
}

async function resume(
  store: ReturnType<typeof memoryStore>,
  hooks: Hooks,
  ran: string[],
  approve?: 'manual',
) {
  const system = createAgentSystem({
    model: scripted([{ text: 'after' }]),
    tools: [echoTool(ran)],
    store,
    ids: counterIds('r'),
    clock: steppingClock(),
    projectInstructions: false,
    permissionMode: approve ? 'default' : 'bypass',
    hooks,
    ...(approve ? { approve } : {}),
  });
  return { system, agent: await system.resumeAgent('crashed') };
}

describe('a crash while a preTool hook runs', () => {
  it('is repaired on resume: the call gets not_started, the turn ends interrupted, no hook runs again', async () => {
    const hanging: Hooks = { preTool: [() => new Promise(() => {})] };
    const store = await crashWhile(hanging, (log) => log.some((event) => event.type === 'tool.call'));
    let asked = 0;
    const ran: string[] = [];
    const { system, agent } = await resume(store, { preTool: [() => void asked++] }, ran);
    await agent.whenIdle();
    expect(results(agent.log())).toEqual([expect.stringMatching(/^c1 not_started /)]);
    expect(agent.log().find((event) => event.type === 'turn.end')?.data.reason).toBe('interrupted');
    expect(asked).toBe(0);
    expect(ran).toEqual([]);
    expect(hookTrail(agent.log())).toEqual([]);
    await system.dispose();
  });

  it('during an approval the hook asked for: resume asks the hooks again, then the same question', async () => {
    const asks: Hooks = {
      preTool: [{ name: 'reviewer', run: () => ({ decision: 'ask', reason: 'look first' }) }],
    };
    const store = await crashWhile(
      asks,
      (log) => log.some((event) => event.type === 'approval.asked'),
      'manual',
    );
    const ran: string[] = [];
    const { system, agent } = await resume(store, asks, ran, 'manual');
    for (let i = 0; i < 100 && agent.pendingApprovals().length === 0; i++) await settle();
    expect(agent.pendingApprovals().map((call) => call.callId)).toEqual(['c1']);
    agent.approve('c1');
    const result = await agent.whenTurnEnds(1);
    expect(result.reason).toBe('completed');
    expect(ran).toEqual(['x']);
    // The decision before the crash stays in the log; the one made on resume follows it.
    expect(hookTrail(agent.log())).toEqual([
      'preTool reviewer ask: look first',
      'preTool reviewer ask: look first',
    ]);
    expect(results(agent.log())).toEqual(['c1 ok echo: x']);
    await system.dispose();
  });
});
