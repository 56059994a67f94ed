// Background agents and typed results together: an agent type with an `output` schema makes its children
// typed runs (their answers checked and fed back, the JSON delivered to the parent as their result, the
// value in the host's `child.result`), a resumed parent runs a child that never began typed from its link,
// and a typed parent checks its own answer only once its children have reported.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { LogEvent, SessionStore } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { settle } from '../support/controllable.ts';
import { counterIds, echoTool, routedModel, stepIndex, until } from '../support/crash-kit.ts';
import { crashedAt, crashPoints, RecordingStore } from '../support/crash-store.ts';
import { call, expectMailPaired, storedLogs, useSystems } from '../support/mail-kit.ts';

const systemFor = useSystems();

const Count = z.object({ count: z.number() });
/** The JSON Schema the model is shown for `Count` (and the link and the child's `turn.start` record). */
const countSchema = {
  type: 'object',
  properties: { count: { type: 'number' } },
  required: ['count'],
};
const counterTools = () => [
  echoTool,
  ...backgroundAgentTools({
    agentTypes: { counter: { description: 'Counts things.', output: Count, maxOutputRetries: 1 } },
  }),
];

/** A parent that starts one counter, says it waits, and answers once the counter reported. */
const supervise = (request: ModelRequest) => {
  const step = stepIndex(request);
  if (step === 0) return { toolCalls: [call('spawn_agent', { agent_type: 'counter', prompt: 'count' })] };
  return { text: step === 1 ? 'Waiting for the counter.' : 'Got it.' };
};

const mailOf = (events: readonly LogEvent[]) =>
  events.flatMap((event) =>
    event.type === 'inbox.queued' && event.data.from !== undefined
      ? [[event.data.from, event.data.kind, event.data.message]]
      : [],
  );
const checksOf = (events: readonly LogEvent[]) =>
  events.flatMap((event) =>
    event.type === 'output.checked' ? [[event.data.valid, event.data.attempt]] : [],
  );

describe('typed background agents', () => {
  it('an agent type with output: its answer is checked, fed back, and its JSON is the result', async () => {
    const model = routedModel({ supervise, count: [{ text: 'three' }, { text: '{"count":3}' }] });
    const system = systemFor({ model, tools: counterTools() });
    const parent = await system.createAgent({ id: 'parent' });
    expect(await parent.run('supervise')).toMatchObject({ reason: 'completed', text: 'Got it.' });

    const spawn = model.requests[0]!.tools.find((tool) => tool.name === 'spawn_agent');
    expect(spawn?.description).toContain(
      `- counter: Counts things. Its final answer is JSON matching this schema: ${JSON.stringify(countSchema)}`,
    );
    const [child] = parent.children();
    expect(parent.log().find((event) => event.type === 'agent.spawned')?.data).toEqual({
      childSessionId: child!.id,
      callId: 'call_0_0',
      background: true,
      output: { schema: countSchema, maxRetries: 1 },
    });
    expect(await child!.result).toMatchObject({
      reason: 'completed',
      text: '{"count":3}',
      output: { count: 3 },
    });
    expect(checksOf(child!.log())).toEqual([
      [false, 1],
      [true, 2],
    ]);
    expect(mailOf(parent.log())).toEqual([
      [child!.id, 'result', `Agent ${child!.id} finished (completed):\n{"count":3}`],
    ]);
    expectMailPaired(await storedLogs(system.store));
  });

  it('a typed child whose answers never pass reports invalid_output, with no output', async () => {
    const model = routedModel({ supervise, count: [{ text: 'three' }, { text: 'still three' }] });
    const system = systemFor({ model, tools: counterTools() });
    const parent = await system.createAgent({ id: 'parent' });
    expect(await parent.run('supervise')).toMatchObject({ reason: 'completed', text: 'Got it.' });
    const [child] = parent.children();
    const result = await child!.result;
    expect([result.reason, result.output, result.error?.kind]).toEqual([
      'invalid_output',
      undefined,
      'invalid_output',
    ]);
    expect(mailOf(parent.log())).toEqual([
      [child!.id, 'result', `Agent ${child!.id} finished (invalid_output):\nstill three`],
    ]);
  });

  it('a typed parent checks its answer once, after its child reported, not while it waits', async () => {
    const clock = new SimulatedClock(1_000);
    const model = routedModel({
      supervise: (request) => {
        const step = stepIndex(request);
        if (step === 0) return { toolCalls: [call('spawn_agent', { prompt: 'work' })] };
        return { text: step === 1 ? 'Waiting for the worker.' : '{"total":3}' };
      },
      // The worker reports when the clock says so: after its parent's model is done and its turn waits.
      work: [{ toolCalls: [call('wait_agents', { ids: ['parent'], timeout_ms: 5_000 })] }, { text: 'three' }],
    });
    const system = systemFor({ model, tools: [echoTool, ...backgroundAgentTools()], clock });
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('supervise', { output: z.object({ total: z.number() }) });
    const answered = () => parent.log().some((event) => event.data.text === 'Waiting for the worker.');
    await until(() => answered() && clock.pendingTimers > 0, 'the parent waits for its worker');
    await settle(10);
    const turn = parent.snapshot().children.find((actor) => actor.id === 'turn');
    expect(turn?.value).toBe('waitingForAgents');
    expect(checksOf(parent.log())).toEqual([]);
    clock.advance(5_000);
    const result = await run;
    expect([result.reason, result.output]).toEqual(['completed', { total: 3 }]);
    const [child] = parent.children();
    const events = parent.log().flatMap((event) => {
      if (event.type === 'assistant.message') return [`answer: ${event.data.text || 'tools'}`];
      if (event.type === 'inbox.queued' && event.data.from === child!.id) return ['result'];
      if (event.type === 'output.checked') return [`checked: ${event.data.valid} #${event.data.attempt}`];
      return event.type === 'turn.end' ? [`end: ${event.data.reason}`] : [];
    });
    expect(events).toEqual([
      'answer: tools',
      'answer: Waiting for the worker.',
      'result',
      'answer: {"total":3}',
      'checked: true #1',
      'end: completed',
    ]);
  });

  it('a resumed parent runs a typed child that never began typed, from the output its link recorded', async () => {
    const model = () => routedModel({ supervise, count: [{ text: 'three' }, { text: '{"count":3}' }] });
    const recording = new RecordingStore();
    const original = systemOn(recording, model(), 'id');
    const first = await original.createAgent({ id: 'parent' });
    await first.run('supervise');
    await original.dispose();
    // The crash: right after the link was written, before the child was given its prompt.
    const points = crashPoints(recording.writes);
    const linked = points.findIndex(
      (point) => point.op === 'append' && point.events[0]!.type === 'agent.spawned',
    );
    const store = await crashedAt(points, linked + 1);
    const link = (await storedLogs(store)).get('parent')!.at(-1)!;
    const childId = String(link.data.childSessionId);
    expect(link.data.output).toEqual({ schema: countSchema, maxRetries: 1 });
    expect((await storedLogs(store)).get(childId)?.map((event) => event.type)).toEqual(['session.start']);

    const system = systemOn(store, model(), 'r');
    try {
      const parent = await system.resumeAgent('parent');
      const [child] = parent.children();
      expect(await child!.result).toMatchObject({ reason: 'completed', output: { count: 3 } });
      await until(() => system.list().length === 1 && parent.state === 'ready.idle', 'the tree rests');
      const logs = await storedLogs(store);
      const childLog = logs.get(childId)!;
      const prompt = childLog.find((event) => event.type === 'inbox.queued');
      expect(prompt?.data).toMatchObject({
        message: 'count',
        output: { schema: countSchema, maxRetries: 1 },
      });
      expect(checksOf(childLog)).toEqual([
        [false, 1],
        [true, 2],
      ]);
      expect(mailOf(logs.get('parent')!)).toEqual([
        [childId, 'result', `Agent ${childId} finished (completed):\n{"count":3}`],
      ]);
      expectMailPaired(logs);
    } finally {
      await system.dispose();
    }
  });
});

function systemOn(store: SessionStore, model: ReturnType<typeof routedModel>, idPrefix: string): AgentSystem {
  return systemFor({
    model,
    tools: counterTools(),
    store,
    clock: new SimulatedClock(1_000),
    ids: counterIds(idPrefix),
  });
}
