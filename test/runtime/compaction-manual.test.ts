// agent.compact(): on an idle agent (a turn that only compacts), on a running one (before its next step,
// or before the turn ends), shared by calls made meanwhile, and its argument checked like the others.
import { describe, expect, it } from 'vitest';
import { AgentStateError } from '../../src/errors/agent-state-error.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { type ScriptEntry, scripted } from '../../src/providers/scripted.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { CompactionOptions } from '../../src/runtime/options.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { counterIds, echoTool } from '../support/crash-kit.ts';

async function agentWith(script: ScriptEntry[], compaction: CompactionOptions = {}) {
  const model = scripted(script);
  const system = createAgentSystem({
    model,
    tools: [echoTool],
    ids: counterIds(),
    projectInstructions: false,
    permissionMode: 'bypass',
    compaction,
  });
  const agent = await system.createAgent({ id: 'm' });
  return { model, system, agent };
}

const types = (events: readonly { type: string }[]) => events.map((event) => event.type);

describe('agent.compact()', () => {
  it('on an idle agent runs a turn that only compacts, with the instructions of the call and the option', async () => {
    const { model, system, agent } = await agentWith(
      [{ text: 'One.' }, { text: 'Two.' }, { text: 'Both questions answered.' }],
      { instructions: 'Keep file names.' },
    );
    await agent.run('Question one');
    await agent.run('Question two');
    const before = agent.log().length;
    const result = await agent.compact({ instructions: 'Mention the questions.' });
    const log = agent.log();
    const secondTurnStart = log.filter((event) => event.type === 'turn.start')[1]!.seq;
    // Two turns kept by default: the latest step (turn two) stays, everything before it is summarised.
    expect(result).toEqual({
      compacted: true,
      replaces: [1, secondTurnStart],
      tokensBefore: 10,
      summary: 'Both questions answered.',
    });
    expect(types(log.slice(before))).toEqual(['turn.start', 'compaction', 'turn.end']);
    expect(log.at(-1)!.data).toMatchObject({
      reason: 'completed',
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    expect(log.at(-2)!.data).toMatchObject({ trigger: 'manual', summary: 'Both questions answered.' });
    const request = model.requests[2]!;
    expect(isCompactionRequest(request)).toBe(true);
    // The steps' own prompt, tools and messages, then the ask: the vendor's cache reads that prefix.
    expect(request.system).toBe(model.requests[1]!.system);
    expect(request.tools).toEqual(model.requests[1]!.tools);
    expect(request.messages.slice(0, -1)).toEqual([
      { role: 'user', content: 'Question one' },
      { role: 'assistant', text: 'One.', toolCalls: [] },
    ]);
    const ask = (request.messages.at(-1) as { content: string }).content;
    expect(ask.endsWith('Also follow these instructions: Keep file names.\nMention the questions.')).toBe(
      true,
    );
    await agent.whenIdle();
    expect(agent.log()).toHaveLength(log.length);
    await system.dispose();
  });

  it('answers nothing_to_compact without a model request when nothing is older', async () => {
    const { model, system, agent } = await agentWith([]);
    expect(await agent.compact()).toEqual({ compacted: false, reason: 'nothing_to_compact' });
    expect(types(agent.log())).toEqual(['session.start', 'turn.start', 'turn.end']);
    expect(model.requests).toEqual([]);
    await system.dispose();
  });

  it('on a running agent compacts before the next step, and calls made meanwhile share the result', async () => {
    let first: Promise<unknown> | undefined;
    let second: Promise<unknown> | undefined;
    const { model, system, agent } = await agentWith([
      { text: 'Earlier answer.' },
      () => {
        // Asked while the model answers the first step of turn two.
        first = agent.compact();
        second = agent.compact({ instructions: 'ignored: the first request is pending' });
        return { toolCalls: [{ id: 'e1', name: 'echo', input: { text: 'x' } }] };
      },
      { text: 'Summary of turn one.' },
      { text: 'Finished.' },
    ]);
    await agent.run('Earlier question');
    const before = agent.log().length;
    expect(await agent.run('Now work')).toMatchObject({ reason: 'completed', text: 'Finished.' });
    const results = await Promise.all([first, second]);
    expect(results[0]).toMatchObject({ compacted: true, summary: 'Summary of turn one.' });
    expect(results[1]).toBe(results[0]);
    expect(types(agent.log().slice(before)).slice(4)).toEqual([
      'step.start',
      'assistant.message',
      'tool.call',
      'approval.decided',
      'tool.started',
      'tool.result',
      'step.end',
      'compaction',
      'step.start',
      'assistant.message',
      'step.end',
      'turn.end',
    ]);
    expect(model.requests.map(isCompactionRequest)).toEqual([false, false, true, false]);
    expect((model.requests[2]!.messages[0] as { content: string }).content).not.toContain('ignored');
    await system.dispose();
  });

  it('asked during the last step of a turn, compacts before the turn ends', async () => {
    let asked: Promise<unknown> | undefined;
    const { system, agent } = await agentWith([
      { text: 'Earlier answer.' },
      () => {
        asked = agent.compact();
        return { text: 'Done now.' };
      },
      { text: 'Summary.' },
    ]);
    await agent.run('Earlier question');
    await agent.run('Last question');
    expect(await asked).toMatchObject({ compacted: true });
    expect(types(agent.log().slice(-4))).toEqual(['assistant.message', 'step.end', 'compaction', 'turn.end']);
    await system.dispose();
  });

  it('ends the turn model_error when the model fails the summary, and says so', async () => {
    const { system, agent } = await agentWith([
      { text: 'One.' },
      { text: 'Two.' },
      { error: { kind: 'auth' } },
    ]);
    await agent.run('one');
    await agent.run('two');
    const result = await agent.compact();
    expect(result).toEqual({
      compacted: false,
      reason: 'model_error',
      error: { kind: 'auth', message: 'scripted auth', retryable: false },
    });
    expect(agent.log().at(-1)!.data).toMatchObject({ reason: 'model_error', error: { kind: 'auth' } });
    await system.dispose();
  });

  it('sends the summarising request to compaction.model, and the steps to the agent model', async () => {
    const summariser = scripted([{ text: 'Summary by the small model.', usage: { inputTokens: 7 } }], {
      model: 'small',
    });
    const { model, system, agent } = await agentWith(
      [{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }],
      {
        model: summariser,
      },
    );
    await agent.run('one');
    await agent.run('two');
    const events = agent.events();
    const result = await agent.compact();
    expect(result).toMatchObject({ compacted: true, summary: 'Summary by the small model.' });
    // Watchers hear that a compaction began (the CLI says so) before its summary is logged.
    const seen: string[] = [];
    for await (const event of events) {
      if (event.type === 'compaction.start') seen.push(`${event.type} turn ${event.turn}`);
      if (event.type === 'log' && ['compaction', 'turn.end'].includes(event.event.type))
        seen.push(event.event.type);
      if (event.type === 'log' && event.event.type === 'turn.end') break;
    }
    expect(seen).toEqual(['compaction.start turn 3', 'compaction', 'turn.end']);
    await agent.run('three');
    expect(model.requests.map(isCompactionRequest)).toEqual([false, false, false]);
    expect(summariser.requests.map(isCompactionRequest)).toEqual([true]);
    // The summary the small model wrote is what the agent model reads in place of turn one.
    const third = JSON.stringify(model.requests[2]!.messages);
    expect(third).toContain('Summary by the small model.');
    expect(third).not.toContain('One.');
    await system.dispose();
  });

  it('rejects a bad argument with ConfigError and a disposed agent with AgentStateError', async () => {
    const { system, agent } = await agentWith([]);
    await expect(agent.compact({ instructions: '' })).rejects.toThrow(
      new ConfigError('agent.compact: options.instructions must be a non-empty string, got ""'),
    );
    await expect(agent.compact({ keep: 1 } as never)).rejects.toThrow(ConfigError);
    await expect(agent.compact(null as never)).rejects.toThrow(ConfigError);
    expect(types(agent.log())).toEqual(['session.start']);
    await system.dispose();
    await expect(agent.compact()).rejects.toThrow(AgentStateError);
  });
});
