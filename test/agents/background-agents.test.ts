// Background agents end to end on a scripted model: a parent that starts children and goes on working, the
// results and messages in both sessions' logs, `wait: false`, `wait_agents` on the injected clock.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import {
  assertCallsPaired,
  echoTool,
  routedModel,
  stepIndex,
  tickingClock,
  until,
} from '../support/crash-kit.ts';
import { call, expectMailPaired, startedIds, storedLogs, useSystems } from '../support/mail-kit.ts';

const systemFor = useSystems();

function makeSystem(options: Partial<AgentSystemOptions> & Pick<AgentSystemOptions, 'model'>): AgentSystem {
  return systemFor({ tools: [echoTool, ...backgroundAgentTools()], clock: tickingClock(), ...options });
}

const types = (events: readonly LogEvent[]) => events.map((event) => event.type);
const mailOf = (events: readonly LogEvent[]) =>
  events.flatMap((event) =>
    event.type === 'inbox.queued' && event.data.from !== undefined
      ? [[event.data.from, event.data.kind, event.data.message]]
      : [],
  );

describe('background agents', () => {
  it('a parent starts two children, goes on working, exchanges messages and hears both results', async () => {
    const model = routedModel({
      supervise: (request: ModelRequest) => {
        const step = stepIndex(request);
        if (step === 0)
          return {
            toolCalls: [
              call('spawn_agent', { prompt: 'worker A', description: 'A' }),
              call('spawn_agent', { prompt: 'worker B', description: 'B' }),
            ],
          };
        // The parent keeps working while its children do, and gives A one more instruction.
        if (step === 1)
          return {
            toolCalls: [
              call('send_message', { to: startedIds(request)[0], text: 'Use the short form.' }),
              call('echo', { text: 'meanwhile' }),
            ],
          };
        return { text: 'All reported.' };
      },
      // A waits for its parent's message, answers it, then reports.
      'worker A': [
        { toolCalls: [call('wait_agents', { ids: ['parent'] })] },
        { toolCalls: [call('send_message', { to: 'parent', text: 'A: short form it is.' })] },
        { text: 'A result' },
      ],
      'worker B': [{ text: 'B result' }],
    });
    const sys = makeSystem({ model });
    const parent = await sys.createAgent({ id: 'parent' });
    const result = await parent.run('supervise');
    expect(result).toMatchObject({ reason: 'completed', text: 'All reported.', turn: 1 });

    const [a, b] = parent.children();
    expect(parent.children().map((child) => [child.description, child.status, child.wait])).toEqual([
      ['A', 'finished', true],
      ['B', 'finished', true],
    ]);
    expect((await a!.result).text).toBe('A result');
    expect((await b!.result).text).toBe('B result');
    const spawned = parent.log().filter((event) => event.type === 'agent.spawned');
    expect(spawned.map((event) => event.data)).toEqual([
      { childSessionId: a!.id, callId: 'call_0_0', background: true },
      { childSessionId: b!.id, callId: 'call_0_1', background: true },
    ]);
    // The parent read a message and two results, each once, and its turn ended after both results.
    expect(mailOf(parent.log()).sort()).toEqual(
      [
        [a!.id, 'message', `Message from agent ${a!.id}:\nA: short form it is.`],
        [a!.id, 'result', `Agent ${a!.id} finished (completed):\nA result`],
        [b!.id, 'result', `Agent ${b!.id} finished (completed):\nB result`],
      ].sort(),
    );
    const lastResult = parent.log().findLastIndex((event) => event.data.kind === 'result');
    expect(lastResult).toBeLessThan(parent.log().findIndex((event) => event.type === 'turn.end'));

    const logs = await storedLogs(sys.store);
    const mail = expectMailPaired(logs);
    expect(mail.map(({ from, to, kind }) => [from, to, kind]).sort()).toEqual(
      [
        ['parent', a!.id, 'message'],
        [a!.id, 'parent', 'message'],
        [a!.id, 'parent', 'result'],
        [b!.id, 'parent', 'result'],
      ].sort(),
    );
    // A read its parent's message; its wait ended on it.
    const childA = logs.get(a!.id)!;
    expect(mailOf(childA)).toEqual([
      ['parent', 'message', 'Message from your parent agent (parent):\nUse the short form.'],
    ]);
    const waited = childA.find((event) => event.type === 'tool.result');
    expect(waited?.data.content).toBe('parent (parent)\nNew mail from parent: it is shown to you next.');
    for (const [id, events] of logs) assertCallsPaired(events, id);
    // Each child: its turn, then its result sent, then its session's end.
    expect(types(logs.get(b!.id)!).slice(-3)).toEqual(['turn.end', 'message.sent', 'session.end']);
    expect(types(childA).slice(-3)).toEqual(['turn.end', 'message.sent', 'session.end']);
    expect(sys.list().map((agent) => agent.id)).toEqual(['parent']);
  });

  it('wait: false lets the turn end; the late result wakes the parent for another turn', async () => {
    const clock = new SimulatedClock(1_000);
    const model = routedModel(
      {
        delegate: [
          { toolCalls: [call('spawn_agent', { prompt: 'slow worker', wait: false })] },
          { text: 'Started it.' },
        ],
        // The child waits for a message that never comes: it goes on when the clock says so.
        'slow worker': [
          { toolCalls: [call('wait_agents', { ids: ['parent'], timeout_ms: 5_000 })] },
          { text: 'Slow result' },
        ],
      },
      () => ({ text: 'Noted the result.' }),
    );
    const sys = makeSystem({ model, clock });
    const parent = await sys.createAgent({ id: 'parent' });
    const first = await parent.run('delegate');
    expect(first).toMatchObject({ reason: 'completed', text: 'Started it.', turn: 1 });
    const [child] = parent.children();
    expect([child!.status, child!.wait]).toEqual(['running', false]);
    expect(parent.log().find((event) => event.type === 'agent.spawned')?.data).toEqual({
      childSessionId: child!.id,
      callId: 'call_0_0',
      background: true,
      wait: false,
    });

    await until(() => clock.pendingTimers > 0, 'the child waits on the clock');
    clock.advance(5_000);
    expect((await child!.result).text).toBe('Slow result');
    await until(
      () => parent.log().some((event) => event.type === 'turn.end' && event.turn === 2),
      'turn 2 ends',
    );
    const turn2 = parent.log().filter((event) => event.turn === 2 || event.type === 'inbox.queued');
    expect(types(turn2).slice(-8)).toEqual([
      'inbox.queued',
      'turn.start',
      'inbox.claimed',
      'user.message',
      'step.start',
      'assistant.message',
      'step.end',
      'turn.end',
    ]);
    expect(
      parent.log().find((event) => event.type === 'inbox.queued' && event.data.from)?.data,
    ).toMatchObject({
      from: child!.id,
      kind: 'result',
      channel: 'steer',
    });
    const timedOut = child!.log().find((event) => event.type === 'tool.result');
    expect(timedOut?.data.content).toBe(`parent (parent)\nNothing arrived before the timeout.`);
    expectMailPaired(await storedLogs(sys.store));
  });
});
