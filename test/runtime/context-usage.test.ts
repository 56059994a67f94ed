// Context accounting: after every answered step request the runtime knows how full the window is, shows
// it in agent.snapshot() and as a `context.usage` live event, and a resumed agent knows it from its log.
import { describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../src/actors/live-event.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { SessionStore } from '../../src/session/types.ts';
import { counterIds, echoTool } from '../support/crash-kit.ts';
import { withWindow } from '../support/window-model.ts';

const call = (id: string) => ({ toolCalls: [{ id, name: 'echo', input: { text: id } }] });

function systemOn(model: ReturnType<typeof scripted>, store: SessionStore = memoryStore()) {
  return createAgentSystem({
    model,
    tools: [echoTool],
    store,
    ids: counterIds(),
    projectInstructions: false,
    permissionMode: 'bypass',
    compaction: { keepRecentTurns: 1 },
  });
}

describe('context usage', () => {
  it('counts input and cache tokens of the last answered request, against the model window', async () => {
    const model = withWindow(
      scripted([
        { ...call('a'), usage: { inputTokens: 100, cacheReadTokens: 50, cacheWriteTokens: 5 } },
        { text: 'Done.', usage: { inputTokens: 300, cacheReadTokens: 20 } },
      ]),
      10_000,
    );
    const system = systemOn(model);
    const agent = await system.createAgent({ id: 'u' });
    expect(agent.snapshot().contextUsage).toEqual({ usedTokens: 0, contextWindow: 10_000 });
    const events = agent.events();
    await agent.run('go');
    const usage: LiveEvent[] = [];
    for await (const event of events) {
      if (event.type === 'context.usage') usage.push(event);
      if (event.type === 'log' && event.event.type === 'turn.end') break;
    }
    expect(usage).toEqual([
      { type: 'context.usage', agentId: 'u', turn: 1, step: 1, usedTokens: 155, contextWindow: 10_000 },
      { type: 'context.usage', agentId: 'u', turn: 1, step: 2, usedTokens: 320, contextWindow: 10_000 },
    ]);
    expect(agent.snapshot().contextUsage).toEqual({ usedTokens: 320, contextWindow: 10_000 });
    await system.dispose();
  });

  it('shows the running turn’s latest request in the snapshot, before the turn ends', async () => {
    let seen: unknown;
    const model = scripted([
      { ...call('a'), usage: { inputTokens: 700 } },
      () => {
        seen = agent.snapshot().contextUsage;
        return { text: 'Done.' };
      },
    ]);
    const system = systemOn(model);
    const agent = await system.createAgent({ id: 'r' });
    await agent.run('go');
    expect(seen).toEqual({ usedTokens: 700, contextWindow: 32_000 });
    await system.dispose();
  });

  it('is kept across resume: a full window left in the log is compacted before the next step', async () => {
    const store = memoryStore();
    const first = withWindow(
      scripted([{ text: 'One.' }, { text: 'Two.', usage: { inputTokens: 900 } }]),
      1_000,
    );
    const before = systemOn(first, store);
    const agent = await before.createAgent({ id: 's' });
    await agent.run('one');
    await agent.run('two');
    await before.dispose();

    const second = withWindow(scripted([{ text: 'Summary.' }, { text: 'Three.' }]), 1_000);
    const after = systemOn(second, store);
    const resumed = await after.resumeAgent('s');
    expect(resumed.snapshot().contextUsage).toEqual({ usedTokens: 900, contextWindow: 1_000 });
    expect(await resumed.run('three')).toMatchObject({ reason: 'completed', text: 'Three.' });
    expect(second.requests.map(isCompactionRequest)).toEqual([true, false]);
    await after.dispose();
  });

  it('is kept across resume: after a compaction that followed the last request, the next turn does not compact again at once', async () => {
    const store = memoryStore();
    const roomy = withWindow(
      scripted([{ text: 'One.' }, { text: 'Two.', usage: { inputTokens: 900 } }, { text: 'Summary.' }]),
      10_000,
    );
    const before = systemOn(roomy, store);
    const agent = await before.createAgent({ id: 't' });
    await agent.run('one');
    await agent.run('two');
    expect(await agent.compact()).toMatchObject({ compacted: true });
    await before.dispose();

    const tight = withWindow(scripted([{ text: 'Three.' }]), 1_000);
    const after = systemOn(tight, store);
    const resumed = await after.resumeAgent('t');
    expect(resumed.snapshot().contextUsage).toEqual({ usedTokens: 900, contextWindow: 1_000 });
    await resumed.run('three');
    expect(tight.requests.map(isCompactionRequest)).toEqual([false]);
    await after.dispose();
  });
});
