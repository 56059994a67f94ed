// XState memoises a machine's transition candidates per event type, on state nodes that live as long as
// the machine definition: an event type that names an agent, a call or an actor adds an entry for good.
// These tests count the distinct event types that machines receive while more and more agents (with
// subagents and uniquely named tool calls) come and go: the count must not grow with them.
import { afterEach, describe, expect, it } from 'vitest';
import type { ActorRefLike, InspectionEvent } from 'xstate';
import type { ModelRequest } from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { scripted } from '../../src/testing.ts';
import { taskTool } from '../../src/tools/task.ts';
import { counterIds, echoTool, firstUser, tickingClock } from '../support/crash-kit.ts';

let system: AgentSystem | undefined;
afterEach(async () => {
  await system?.dispose();
  system = undefined;
});

let uniqueCall = 0;
/** Parents delegate to a subagent and call echo; every call id is new, as a real model's are. */
function answer(request: ModelRequest) {
  const asking = firstUser(request);
  const toolsDone = request.messages.filter((message) => message.role === 'tool').length;
  if (asking.startsWith('parent') && toolsDone === 0) {
    return {
      toolCalls: [
        { id: `task-${++uniqueCall}`, name: 'task', input: { description: 'd', prompt: `child ${asking}` } },
        { id: `echo-${++uniqueCall}`, name: 'echo', input: { text: 'x' } },
      ],
    };
  }
  if (asking.startsWith('child') && toolsDone === 0) {
    return { toolCalls: [{ id: `echo-${++uniqueCall}`, name: 'echo', input: { text: 'y' } }] };
  }
  return { text: `done ${asking}` };
}

/** Whether an actor runs a state machine (whose state nodes hold XState's per-event-type memo). */
function isMachine(actor: ActorRefLike): boolean {
  return 'root' in (actor as unknown as { logic: object }).logic;
}

describe('event types that reach machines', () => {
  it('stay the same set however many agents, subagents and tool calls come and go', async () => {
    system = createAgentSystem({
      model: scripted(new Array(1000).fill(answer)),
      tools: [echoTool, taskTool()],
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    const machineEventTypes = new Set<string>();
    const allEventTypes = new Set<string>();
    system.inspect((event: InspectionEvent) => {
      if (event.type !== '@xstate.event') return;
      allEventTypes.add(event.event.type);
      if (isMachine(event.actorRef)) machineEventTypes.add(event.event.type);
    });
    const runAgents = async (from: number, to: number) => {
      for (let index = from; index < to; index++) {
        const agent = await system!.createAgent();
        const result = await agent.run(`parent ${index}`);
        expect(result.text).toBe(`done parent ${index}`);
        await agent.dispose();
      }
    };
    await runAgents(0, 2);
    const afterTwo = [...machineEventTypes].sort();
    const allAfterTwo = allEventTypes.size;
    await runAgents(2, 12);
    expect([...machineEventTypes].sort()).toEqual(afterTwo);
    // Sanity: the inspection saw the whole tree (agent, turn, step, batch, calls, subagents) and that
    // plain actors did receive per-actor types (the host hears `xstate.done.actor.<agent>`).
    expect(afterTwo.length).toBeGreaterThan(15);
    expect(allEventTypes.size).toBeGreaterThan(allAfterTwo);
  });
});
