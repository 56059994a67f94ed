// `subagentStop` hooks: the turn of a subagent (the `task` tool's child) asks them where a top-level turn
// asks the `stop` hooks; a refusal gives the child another step before its text goes back to the parent.
import { describe, expect, it } from 'vitest';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { taskTool } from '../../src/tools/task.ts';
import { counterIds, echoTool, routedModel, tickingClock } from '../support/crash-kit.ts';
import { hookTrail } from './hook-kit.ts';

describe('subagentStop hooks', () => {
  it("refuse the end of a subagent's turn once; the parent's turn asks the stop hooks", async () => {
    const model = routedModel({
      'please delegate': [
        { toolCalls: [{ name: 'task', input: { description: 'delegate', prompt: 'child: work' } }] },
        { text: 'Parent done.' },
      ],
      'child: work': [{ text: 'First try.' }, { text: 'Checked twice.' }],
    });
    const told: Array<{ point: string; parent?: string; refusals: number }> = [];
    const system = createAgentSystem({
      model,
      tools: [echoTool, taskTool()],
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      hooks: {
        stop: [({ point, refusals }) => void told.push({ point, refusals })],
        subagentStop: [
          ({ point, parent, refusals }) => {
            told.push({ point, parent, refusals });
            return refusals === 0 ? { decision: 'block', reason: 'Check again.' } : undefined;
          },
        ],
      },
    });
    const parent = await system.createAgent({ id: 'parent' });
    const result = await parent.run('please delegate');
    expect(result.reason).toBe('completed');
    expect(told).toEqual([
      { point: 'subagentStop', parent: 'parent', refusals: 0 },
      { point: 'subagentStop', parent: 'parent', refusals: 1 },
      { point: 'stop', refusals: 0 },
    ]);
    const taskResult = parent.log().find((event) => event.type === 'tool.result');
    expect(taskResult?.data.content).toContain('Checked twice.');
    const spawned = parent.log().find((event) => event.type === 'agent.spawned');
    const child = (await system.store.load(String(spawned?.data.childSessionId))).events;
    expect(hookTrail(child)).toEqual([
      'subagentStop subagentStop[0] block: Check again.',
      'subagentStop subagentStop[0] pass',
    ]);
    expect(hookTrail(parent.log())).toEqual(['stop stop[0] pass']);
    await system.dispose();
    // The tree replays byte for byte: the child's subagentStop decisions come from the child's own log
    // (the parent's has only its stop decision), and no hook runs again.
    told.length = 0;
    const parentEvents = (await system.store.load('parent')).events;
    const childId = String(spawned?.data.childSessionId);
    const childEvents = (await system.store.load(childId)).events;
    const tools = [echoTool, taskTool()];
    await expectReplay(parentEvents, { tools, subagentLogs: new Map([[childId, childEvents]]) });
    expect(told).toEqual([]);
    // A child log recorded with another step limit than this runtime gives a subagent diverges in the
    // child, named by its session.
    const tampered = childEvents.map((event) =>
      event.seq === 0
        ? { ...event, data: JSON.parse(JSON.stringify(event.data).replace('"maxSteps":10', '"maxSteps":9')) }
        : event,
    );
    const error = await expectReplay(parentEvents, {
      tools,
      subagentLogs: new Map([[childId, tampered]]),
    }).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    const { sessionId, seq, changes } = error as ReplayDivergenceError;
    expect({ sessionId, seq, changes }).toEqual({
      sessionId: childId,
      seq: 0,
      changes: [{ path: 'data.config.limits.maxSteps', change: 'changed', recorded: '9', replayed: '10' }],
    });
  });

  it('a SubagentStop command hook refuses with exit 2 while stop_hook_active is false', async () => {
    const model = routedModel({
      'please delegate': [
        { toolCalls: [{ name: 'task', input: { description: 'delegate', prompt: 'child: work' } }] },
        { text: 'Parent done.' },
      ],
      'child: work': [{ text: 'First try.' }, { text: 'Second try.' }],
    });
    const script =
      "const i=JSON.parse(require('fs').readFileSync(0,'utf8')); " +
      "if (i.hook_event_name==='SubagentStop' && i.parent_session_id==='parent' && !i.stop_hook_active) " +
      "{ process.stderr.write('not yet'); process.exit(2); }";
    const system = createAgentSystem({
      model,
      tools: [echoTool, taskTool()],
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      hooks: { subagentStop: [{ type: 'command', command: `node -e "${script}"` }] },
    });
    const parent = await system.createAgent({ id: 'parent' });
    expect((await parent.run('please delegate')).reason).toBe('completed');
    const taskResult = parent.log().find((event) => event.type === 'tool.result');
    expect(taskResult?.data.content).toContain('Second try.');
    const spawned = parent.log().find((event) => event.type === 'agent.spawned');
    const child = (await system.store.load(String(spawned?.data.childSessionId))).events;
    expect(hookTrail(child).map((line) => line.replace(/ node -e .*? (block|pass)/, ' $1'))).toEqual([
      'subagentStop block: not yet',
      'subagentStop pass',
    ]);
    // The parent has no stop hooks of its own: its turn does not consult subagentStop.
    expect(hookTrail(parent.log())).toEqual([]);
    await system.dispose();
  });
});
