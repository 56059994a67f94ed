// Supervision of background children end to end on a scripted model and the simulated clock: a child whose
// turn ends `model_error` is restarted from its own log after its backoff (logged `agent.restarted` in the
// parent, `session.restarted` in the child), its completed tool calls are not run again, and the parent hears
// the success; a child that fails past its budget escalates its failure as its result; `restart: 'never'`
// is today's behaviour; a stop during the backoff ends the supervision without a restart.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import type { SupervisionPolicy } from '../../src/tools/supervision-option.ts';
import { assertCallsPaired, routedModel, stepIndex, until } from '../support/crash-kit.ts';
import {
  call,
  expectMailPaired,
  storedLogs,
  TickingSimulatedClock,
  useSystems,
} from '../support/mail-kit.ts';

const systemFor = useSystems();

const failing: ScriptStep = { error: { kind: 'bad_request', message: 'the provider refused' } };

/** A tool that counts its runs: a restarted child must not run again what completed. */
function countingTool() {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'note',
    description: 'Notes a value',
    access: 'none',
    concurrencySafe: true,
    input: z.object({ value: z.string() }),
    run: async ({ value }) => {
      runs.push(value);
      return `noted ${value}`;
    },
  });
  return { tool, runs };
}

/**
 * A parent that starts one `worker` child (supervised by `policy`) and, once it hears from it, answers
 * with what it heard; the worker answers `worker` in order (one script step per request).
 */
function tree(policy: SupervisionPolicy | undefined, worker: ScriptStep[]) {
  const clock = new TickingSimulatedClock(1_000);
  const note = countingTool();
  let asked = 0;
  const model = routedModel({
    supervise: (request: ModelRequest) =>
      stepIndex(request) === 0
        ? { toolCalls: [call('spawn_agent', { agent_type: 'worker', prompt: 'work', description: 'W' })] }
        : { text: 'Heard back.' },
    work: () => worker[asked++] ?? { text: 'no more script' },
  });
  const tools = [
    note.tool,
    ...backgroundAgentTools({
      agentTypes: { worker: { description: 'Works.', ...(policy ? { supervision: policy } : {}) } },
    }),
  ];
  const system = systemFor({ model, tools, clock });
  return { system, clock, runs: note.runs, asked: () => asked };
}

const restartsIn = (events: readonly LogEvent[]) =>
  events.filter((event) => event.type === 'agent.restarted').map((event) => event.data);

/** Advances the clock by each backoff once the parent has decided that restart (and its timer is set). */
async function passBackoffs(parent: Agent, clock: TickingSimulatedClock, delays: number[]): Promise<void> {
  for (const [index, delay] of delays.entries()) {
    await until(
      () => restartsIn(parent.log()).length > index && clock.pendingTimers > 0,
      `restart ${index + 1} is decided`,
    );
    clock.advance(delay);
  }
}

describe('supervision of background children', () => {
  it('a child that fails twice then succeeds is restarted twice from its log; the parent hears the success', async () => {
    const policy: SupervisionPolicy = { restart: 'on-failure', maxRestarts: 3, backoffMs: 1_000 };
    const { system, clock, runs } = tree(policy, [
      { toolCalls: [call('note', { value: 'a' })] },
      failing,
      failing,
      { text: 'Work done.' },
    ]);
    const parent = await system.createAgent({ id: 'parent' });
    const run = parent.run('supervise');
    await passBackoffs(parent, clock, [1_000, 2_000]);
    expect(await run).toMatchObject({ reason: 'completed', text: 'Heard back.' });
    const [child] = parent.children();
    expect(child!.status).toBe('finished');
    expect(await child!.result).toMatchObject({ reason: 'completed', text: 'Work done.' });
    // The completed call ran once: the restarts read its result from the log.
    expect(runs).toEqual(['a']);
    expect(restartsIn(parent.log())).toEqual([
      {
        childSessionId: child!.id,
        attempt: 1,
        reason: 'model_error',
        error: 'the provider refused',
        backoffMs: 1_000,
      },
      {
        childSessionId: child!.id,
        attempt: 2,
        reason: 'model_error',
        error: 'the provider refused',
        backoffMs: 2_000,
      },
    ]);
    const logs = await storedLogs(system.store);
    const childLog = logs.get(child!.id)!;
    expect(childLog.filter((event) => event.type === 'session.restarted').map((event) => event.data)).toEqual(
      [
        { attempt: 1, reason: 'model_error', error: 'the provider refused' },
        { attempt: 2, reason: 'model_error', error: 'the provider refused' },
      ],
    );
    expect(childLog.filter((event) => event.type === 'turn.end').map((event) => event.data.reason)).toEqual([
      'model_error',
      'model_error',
      'completed',
    ]);
    expect(parent.log().find((event) => event.type === 'agent.spawned')?.data).toEqual({
      childSessionId: child!.id,
      callId: 'call_0_0',
      background: true,
      supervision: policy,
    });
    // One result reached the parent: the success.
    const results = parent
      .log()
      .filter((event) => event.type === 'inbox.queued' && event.data.kind === 'result');
    expect(results.map((event) => event.data.message)).toEqual([
      `Agent ${child!.id} finished (completed):\nWork done.`,
    ]);
    for (const [id, events] of logs) assertCallsPaired(events, id);
    expectMailPaired(logs);
  });
});
