import { afterEach, describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { z } from 'zod';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { taskTool } from '../../src/tools/task.ts';
import { GateTool } from '../support/controllable.ts';
import {
  assertCallsPaired,
  counterIds,
  echoTool,
  routedModel,
  tickingClock,
  until,
} from '../support/crash-kit.ts';

let system: AgentSystem | undefined;
afterEach(async () => {
  await system?.dispose();
  system = undefined;
});

function makeSystem(options: Partial<AgentSystemOptions> & Pick<AgentSystemOptions, 'model'>): AgentSystem {
  system = createAgentSystem({
    tools: [echoTool, taskTool()],
    ids: counterIds(),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
    ...options,
  });
  return system;
}

const task = (prompt: string, extra: Record<string, unknown> = {}) => ({
  name: 'task',
  input: { description: 'delegate', prompt, ...extra },
});

function only(events: readonly LogEvent[], type: LogEvent['type']): LogEvent[] {
  return events.filter((event) => event.type === type);
}

async function sessionLog(sys: AgentSystem, sessionId: string): Promise<LogEvent[]> {
  return (await sys.store.load(sessionId)).events;
}

describe('task tool: subagents as child agents', () => {
  it('runs a child to the end of its turn, returns its text, links the sessions and disposes the child', async () => {
    const model = routedModel({
      'please delegate': [{ toolCalls: [task('child: say hi')] }, { text: 'Parent done.' }],
      'child: say hi': [{ toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'Hi from child.' }],
    });
    const sys = makeSystem({ model });
    const seen: InspectionEvent[] = [];
    sys.inspect((event) => seen.push(event));
    const parent = await sys.createAgent({ id: 'parent' });
    const result = await parent.run('please delegate');
    expect(result).toMatchObject({ reason: 'completed', text: 'Parent done.' });

    const spawned = parent.log().filter((event) => isEvent(event, 'agent.spawned'));
    expect(spawned.map((event) => event.data)).toEqual([{ childSessionId: 'id3', callId: 'call_0_0' }]);
    const childId = 'id3';
    const taskResult = parent.log().find((event) => isEvent(event, 'tool.result'));
    expect(taskResult?.data).toEqual({ callId: 'call_0_0', outcome: 'ok', content: 'Hi from child.' });
    // agent.spawned is written while the call runs: after tool.started, before its result.
    expect(
      parent
        .log()
        .map((event) => event.type)
        .slice(7, 12),
    ).toEqual(['tool.call', 'approval.decided', 'tool.started', 'agent.spawned', 'tool.result']);

    const child = await sessionLog(sys, childId);
    expect(child[0]?.data).toMatchObject({ agentId: childId, parent: 'parent' });
    expect(child.map((event) => event.type).slice(-3)).toEqual(['step.end', 'turn.end', 'session.end']);
    expect(child.find((event) => event.type === 'turn.end')?.data.reason).toBe('completed');
    expect(sys.list().map((agent) => agent.id)).toEqual(['parent']);

    // The child was an actor of the same system: the inspector saw it and its turn.
    const actors = seen.flatMap((event) =>
      event.type === '@xstate.actor' ? [event.actorRef as AnyActorRef] : [],
    );
    const childRef = actors.find((ref) => ref.getSnapshot().context?.agentId === childId);
    expect(childRef).toBeDefined();
    expect(actors.filter((ref) => ref._parent === childRef && ref.id === 'turn')).toHaveLength(1);
  });

  it('refuses a task call at the depth limit with an error result the model reads', async () => {
    const level = (n: number) => [{ toolCalls: [task(`level ${n + 1}`)] }, { text: `level ${n} done` }];
    const model = routedModel({
      root: level(0),
      'level 1': level(1),
      'level 2': level(2),
      'level 3': level(3),
    });
    const sys = makeSystem({ model });
    const root = await sys.createAgent({ id: 'root' });
    expect(await root.run('root')).toMatchObject({ reason: 'completed', text: 'level 0 done' });

    const sessions = await sys.store.list();
    expect(sessions).toHaveLength(4); // root and three levels of subagents (default maxDepth 3)
    const logs = await Promise.all(sessions.map((id) => sessionLog(sys, id)));
    const deepest = logs.find((events) =>
      events.some((e) => e.type === 'user.message' && e.data.content === 'level 3'),
    );
    const refused = deepest?.find((event) => event.type === 'tool.result');
    expect(refused?.data.outcome).toBe('error');
    expect(String(refused?.data.content)).toContain('subagent depth limit reached');
    expect(only(deepest ?? [], 'agent.spawned')).toEqual([]);
    for (const events of logs) assertCallsPaired(events);
  });

  it('honours a smaller maxDepth and the per-child step limit', async () => {
    const model = routedModel({
      root: [{ toolCalls: [task('child')] }, { text: 'root done' }],
      // The child would loop on echo forever; its step limit (2) ends its turn.
      child: () => ({ toolCalls: [{ name: 'echo', input: { text: 'again' } }, task('grandchild')] }),
    });
    const sys = makeSystem({ model, subagents: { maxDepth: 1, maxSteps: 2 } });
    const root = await sys.createAgent({ id: 'root' });
    await root.run('root');
    const rootResult = root.log().find((event) => event.type === 'tool.result');
    expect(rootResult?.data.outcome).toBe('error');
    expect(String(rootResult?.data.content)).toMatch(
      /^The subagent \(session id\d+\) stopped before completing: max_steps\./,
    );
    const childId = String(only(root.log(), 'agent.spawned')[0]?.data.childSessionId);
    const child = await sessionLog(sys, childId);
    expect(child.filter((e) => e.type === 'step.start')).toHaveLength(2);
    const taskResults = child.filter(
      (e) => e.type === 'tool.result' && String(e.data.content).includes('depth'),
    );
    expect(taskResults).toHaveLength(2);
    expect(await sys.store.list()).toEqual(['id3', 'root']);
  });
});

describe('subagent permissions never exceed the parent', () => {
  const fileTool = (name: string, access: 'read' | 'write' | 'exec') =>
    defineTool({
      name,
      description: name,
      access,
      input: z.object({ path: z.string() }),
      run: async ({ path }) => `${name} ${path}`,
    });
  const tools = [
    fileTool('read_it', 'read'),
    fileTool('write_it', 'write'),
    fileTool('run_it', 'exec'),
    taskTool(),
  ];

  it("inherits mode and deny rules, and asks the parent's host", async () => {
    const calls = [
      { name: 'run_it', input: { path: 'build' } },
      { name: 'write_it', input: { path: 'src/a.ts' } },
      { name: 'write_it', input: { path: 'secret/key' } },
    ];
    const model = routedModel({
      parent: [{ toolCalls: [calls[0]!] }, { toolCalls: [task('child')] }, { text: 'ok' }],
      child: [{ toolCalls: calls }, { text: 'child ok' }],
    });
    const asked: string[] = [];
    const sys = makeSystem({
      model,
      tools,
      permissionMode: 'accept-edits',
      permissions: { deny: ['write_it(secret/**)'] },
      approve: async (request) => {
        asked.push(`${request.agentId}:${request.tool}`);
        return 'allow';
      },
    });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    // The parent asked and was allowed; the child's ask reached the same host (the child's own session).
    const childId = String(only(parent.log(), 'agent.spawned')[0]?.data.childSessionId);
    expect(asked).toEqual(['parent:run_it', `${childId}:run_it`]);
    const child = await sessionLog(sys, childId);
    expect(child[0]?.data.config).toMatchObject({ permissionMode: 'accept-edits' });
    expect(child.filter((e) => e.type === 'tool.result').map((e) => e.data.outcome)).toEqual([
      'ok',
      'ok',
      'denied',
    ]);
    // The check decides by mode and rule at once; the host answers later.
    expect(child.filter((e) => e.type === 'approval.decided').map((e) => e.data.by)).toEqual([
      'mode',
      'rule',
      'host',
    ]);
  });

  it("headless (approve: 'deny'), a subagent cannot ask either: its ask means deny", async () => {
    const model = routedModel({
      parent: [{ toolCalls: [task('child')] }, { text: 'ok' }],
      child: [{ toolCalls: [{ name: 'run_it', input: { path: 'build' } }] }, { text: 'child ok' }],
    });
    const sys = makeSystem({ model, tools, permissionMode: 'accept-edits', approve: 'deny' });
    const parent = await sys.createAgent({ id: 'parent' });
    expect(await parent.run('parent')).toMatchObject({ reason: 'completed', text: 'ok' });
    const childId = String(only(parent.log(), 'agent.spawned')[0]?.data.childSessionId);
    const child = await sessionLog(sys, childId);
    expect(
      child.filter((e) => e.type === 'approval.decided').map((e) => [e.data.outcome, e.data.by]),
    ).toEqual([['deny', 'headless']]);
  });

  it('applies a stricter subagent mode, ignores a looser one, and hands out only tools the parent has', async () => {
    const model = routedModel({
      parent: [
        {
          toolCalls: [
            task('plain child'),
            task('narrow child', { tools: ['read_it'] }),
            task('greedy child', { tools: ['read_it', 'format_disk'] }),
          ],
        },
        { text: 'ok' },
      ],
      'plain child': [{ text: 'plain' }],
      'narrow child': [{ text: 'narrow' }],
    });
    const sys = makeSystem({
      model,
      tools,
      permissionMode: 'default',
      subagents: { permissionMode: 'plan' },
      approve: 'deny',
    });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    const results = only(parent.log(), 'tool.result').map((e) => [e.data.outcome, e.data.content]);
    expect(results).toEqual([
      ['ok', 'plain'],
      ['ok', 'narrow'],
      [
        'error',
        'Error: a subagent can only get tools this agent has; not available: format_disk ' +
          '(available: read_it, write_it, run_it, task)',
      ],
    ]);
    // Children are created side by side, so their spawn order varies: find each by the call that made it.
    const childOf = (callId: string) =>
      String(only(parent.log(), 'agent.spawned').find((e) => e.data.callId === callId)?.data.childSessionId);
    const [plainId, narrowId] = [childOf('call_0_0'), childOf('call_0_1')];
    const toolNames = async (id: string) =>
      (await sessionLog(sys, id)).find((e) => e.type === 'step.start')?.data.toolNames;
    // Plan mode offers only read/none tools, so the child cannot even see write_it and run_it.
    expect(await toolNames(plainId!)).toEqual(['read_it', 'task']);
    expect(await toolNames(narrowId!)).toEqual(['read_it']);
    expect((await sessionLog(sys, plainId!))[0]?.data.config).toMatchObject({ permissionMode: 'plan' });

    const loose = makeSystem({
      model: routedModel({ p: [{ toolCalls: [task('c')] }, { text: 'ok' }], c: [{ text: 'c' }] }),
      tools,
      permissionMode: 'default',
      subagents: { permissionMode: 'bypass' },
      approve: 'deny',
    });
    const p = await loose.createAgent({ id: 'p' });
    await p.run('p');
    const cId = String(only(p.log(), 'agent.spawned')[0]?.data.childSessionId);
    expect((await sessionLog(loose, cId))[0]?.data.config).toMatchObject({ permissionMode: 'default' });
    await sys.dispose();
  });
});

describe('parallel task calls', () => {
  it('run side by side and their results are committed in model order', async () => {
    const gate = new GateTool('wait');
    const child = (name: string) => [
      { toolCalls: [{ name: 'wait', input: { value: name } }] },
      { text: `${name} finished` },
    ];
    const model = routedModel({
      parent: [{ toolCalls: [task('a'), task('b'), task('c')] }, { text: 'all done' }],
      a: child('a'),
      b: child('b'),
      c: child('c'),
    });
    const sys = makeSystem({ model, tools: [gate.tool, taskTool()] });
    const parent = await sys.createAgent({ id: 'parent' });
    const run = parent.run('parent');
    // All three children are blocked in their tool at the same time: they really run side by side.
    await until(() => gate.running.size === 3, 'three children in their tool');
    expect(sys.list()).toHaveLength(4);
    const byValue = (value: string) =>
      [...gate.running.values()].find((c) => (c.input as { value: string }).value === value)!;
    for (const value of ['c', 'a', 'b']) gate.finish(byValue(value).callId, `${value} ok`);
    expect(await run).toMatchObject({ reason: 'completed', text: 'all done' });
    const results = only(parent.log(), 'tool.result').map((e) => [e.data.callId, e.data.content]);
    expect(results).toEqual([
      ['call_0_0', 'a finished'],
      ['call_0_1', 'b finished'],
      ['call_0_2', 'c finished'],
    ]);
    expect(sys.list().map((agent) => agent.id)).toEqual(['parent']);
  });
});
