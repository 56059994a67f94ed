// Bad input to background agents as a model or a plain JavaScript caller sends it: an unknown id, a
// stopped agent, a limit, an unknown type, a bad option. Each is a clear tool error the model reads or a
// ConfigError for the host, never a throw out of an actor (the setup file fails a test on any stray one).
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { assertCallsPaired, routedModel, stepIndex } from '../support/crash-kit.ts';
import { fieldsOf } from '../support/log-fields.ts';
import { call, expectMailPaired, startedIds, storedLogs, useSystems } from '../support/mail-kit.ts';

const systemFor = useSystems();

function makeSystem(options: Partial<AgentSystemOptions> & Pick<AgentSystemOptions, 'model'>): AgentSystem {
  return systemFor({
    tools: backgroundAgentTools({ maxRunning: 1 }),
    clock: new SimulatedClock(1_000),
    ...options,
  });
}

const waitsForParent = [{ toolCalls: [call('wait_agents', { ids: ['parent'], timeout_ms: 60_000 })] }];

describe('background agents: bad input from the model', () => {
  it('every refusal is an error result that says what was wrong', async () => {
    const bad = [
      [call('send_message', { to: 'nope', text: 'hi' })],
      [call('stop_agent', { id: 'nope' })],
      [call('send_message', { to: 'parent', text: 'up' })],
      [call('wait_agents', { ids: ['nope'] })],
      [call('spawn_agent', { agent_type: 'reviewer', prompt: 'review' })],
      [call('spawn_agent', {})],
      // Past the limit of one running child: the second call of the pair is refused.
      [call('spawn_agent', { prompt: 'worker' }), call('spawn_agent', { prompt: 'worker' })],
    ];
    const model = routedModel({
      boss: (request) => {
        const step = stepIndex(request);
        if (step < bad.length) return { toolCalls: bad[step]! };
        const [worker] = startedIds(request);
        if (step === bad.length) return { toolCalls: [call('stop_agent', { id: worker })] };
        if (step === bad.length + 1)
          return { toolCalls: [call('send_message', { to: worker, text: 'more' })] };
        return { text: 'Done.' };
      },
      worker: waitsForParent,
    });
    const sys = makeSystem({ model });
    const boss = await sys.createAgent({ id: 'boss' });
    expect(await boss.run('boss')).toMatchObject({ reason: 'completed', text: 'Done.' });
    const [worker] = boss.children();
    const results = fieldsOf(boss.log(), 'tool.result', 'outcome', 'content');
    expect(results).toEqual([
      ['error', 'there is no agent "nope" among yours (you have started none)'],
      ['error', 'there is no agent "nope" among yours (you have started none)'],
      ['error', 'you have no parent agent: only an agent started by spawn_agent has one'],
      ['error', 'there is no agent "nope" among yours (you have started none)'],
      ['error', 'there is no agent type "reviewer" (no types are defined: leave agent_type out)'],
      [
        'error',
        'Invalid arguments for spawn_agent:\n✖ Invalid input: expected string, received undefined\n  → at prompt',
      ],
      [
        'ok',
        `Started agent ${worker!.id}. It works in the background; its result will arrive as a message, and your turn will not end before it does.`,
      ],
      [
        'error',
        'you already have 1 agents running, the most allowed (1): wait for one to finish (wait_agents) or stop one (stop_agent) first',
      ],
      ['ok', `Stopped agent ${worker!.id}.`],
      ['error', `agent ${worker!.id} was stopped: it reads no more messages`],
    ]);
    const logs = await storedLogs(sys.store);
    expect(expectMailPaired(logs)).toEqual([]);
    for (const [id, events] of logs) assertCallsPaired(events, id);
  });

  it('a child past the depth limit is refused; the host may not write to a child that finished', async () => {
    const model = routedModel(
      {
        top: [{ toolCalls: [call('spawn_agent', { prompt: 'middle' })] }, { text: 'Top done.' }],
        middle: [{ toolCalls: [call('spawn_agent', { prompt: 'bottom' })] }, { text: 'Middle done.' }],
      },
      () => ({ text: 'Heard from the middle.' }),
    );
    const sys = makeSystem({ model, subagents: { maxDepth: 1 } });
    const top = await sys.createAgent({ id: 'top' });
    expect(await top.run('top')).toMatchObject({ reason: 'completed', text: 'Heard from the middle.' });
    const [middle] = top.children();
    const refused = middle!.log().find((event) => event.type === 'tool.result');
    expect(refused?.data).toMatchObject({ outcome: 'error' });
    expect(String(refused?.data.content)).toMatch(/^subagent depth limit reached/);
    expect(() => middle!.send('one more thing')).toThrow(
      new ConfigError(`agent ${middle!.id} has finished (completed): it reads no more messages`),
    );
    expect(() => middle!.send('')).toThrow(/child.send: message must be a non-empty string/);
    expect(() => middle!.send(5 as never)).toThrow(ConfigError);
  });
});

describe('background agents: bad options from a host', () => {
  it.each([
    [{ maxRunning: 0 }, 'backgroundAgentTools: maxRunning must be a positive integer, got 0'],
    [{ maxRuning: 2 }, /unknown option "maxRuning" \(did you mean "maxRunning"\?\)/],
    [{ agentTypes: { reviewer: { instructions: 'Review.' } } }, /agentTypes\.reviewer\.description/],
    [{ agentTypes: { reviewer: { description: 'Reviews', tools: 'all' } } }, /agentTypes\.reviewer\.tools/],
    ['all', /backgroundAgentTools: .*must be an object/],
  ])('backgroundAgentTools(%j) is a ConfigError', (options, message) => {
    expect(() => backgroundAgentTools(options as never)).toThrow(ConfigError);
    expect(() => backgroundAgentTools(options as never)).toThrow(message);
  });
});
