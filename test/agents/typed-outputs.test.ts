// Typed output for many agents: a subagent whose `task` tool the host defined with an output schema (the
// model cannot choose or change it; the parent reads the child's JSON), and job tasks whose results carry
// the parsed output. Real runtime, the routed scripted model.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors/config-error.ts';
import { ReplayDivergenceError } from '../../src/errors/replay-divergence-error.ts';
import { expectReplay, readRecordingTree } from '../../src/replay/expect-replay.ts';
import type { AgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { taskTool } from '../../src/tools/task.ts';
import { GateTool } from '../support/controllable.ts';
import { echoTool, firstUser, routedModel, tickingClock, until } from '../support/crash-kit.ts';
import { useSystems } from '../support/mail-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const systemFor = useSystems(tickingClock);
function makeSystem(options: Pick<AgentSystemOptions, 'model'> & Partial<AgentSystemOptions>): AgentSystem {
  return systemFor({ tools: [echoTool], ...options });
}

const findings = z.object({ files: z.array(z.string()), count: z.number().int() });
const findingsSchema = {
  type: 'object',
  properties: {
    files: { type: 'array', items: { type: 'string' } },
    count: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
  },
  required: ['files', 'count'],
};

const checks = (events: readonly LogEvent[]) =>
  events.flatMap((event) => (isEvent(event, 'output.checked') ? [event.data.valid] : []));

describe('a subagent with typed output', () => {
  it("runs the child as a typed run with the host's schema and gives the parent its JSON", async () => {
    const model = routedModel({
      delegate: [
        {
          toolCalls: [
            {
              name: 'task',
              // The model cannot choose the output: a schema it passes is not part of the tool's input.
              input: { description: 'find', prompt: 'find files', output: { type: 'object' } },
            },
          ],
        },
        { text: 'Parent done.' },
      ],
      'find files': [{ text: 'I found two.' }, { json: { files: ['a.ts', 'b.ts'], count: 2 } }],
    });
    const system = makeSystem({ model, tools: [echoTool, taskTool({ output: findings })] });
    const parent = await system.createAgent({ id: 'parent' });
    expect((await parent.run('delegate')).reason).toBe('completed');

    const result = parent.log().find((event) => isEvent(event, 'tool.result'));
    expect(result?.data).toEqual({
      callId: 'call_0_0',
      outcome: 'ok',
      content: '{"files":["a.ts","b.ts"],"count":2}',
    });
    const spawned = parent.log().find((event) => isEvent(event, 'agent.spawned'));
    const child = (await system.store.load(String(spawned?.data.childSessionId))).events;
    const start = child.find((event) => isEvent(event, 'turn.start'));
    expect(start?.data).toEqual({ output: { schema: findingsSchema, maxRetries: 2 } });
    expect(checks(child)).toEqual([false, true]);
    // The parent's model is told what the subagent answers with.
    const offered = model.requests[0]?.tools.find((tool) => tool.name === 'task');
    expect(offered?.description).toContain(
      `Its final answer is JSON matching this schema: ${JSON.stringify(findingsSchema)}`,
    );
  });

  it('reports a child that never gave valid output as a failed call the parent reads', async () => {
    const model = routedModel({
      delegate: [
        { toolCalls: [{ name: 'task', input: { description: 'find', prompt: 'find files' } }] },
        { text: 'The subagent failed.' },
      ],
      'find files': [{ text: 'Two files.' }],
    });
    const system = makeSystem({
      model,
      tools: [echoTool, taskTool({ output: findings, maxOutputRetries: 0 })],
    });
    const parent = await system.createAgent({ id: 'parent' });
    await parent.run('delegate');
    const result = parent.log().find((event) => isEvent(event, 'tool.result'));
    expect(result?.data.outcome).toBe('error');
    expect(String(result?.data.content)).toMatch(
      /^The subagent \(session id\d+\) stopped before completing: invalid_output\.\nTwo files\.$/,
    );
  });

  it('gives a tool that spawns a typed subagent the value its schema gave', async () => {
    const counted = defineTool({
      name: 'count_files',
      description: 'Counts files with a subagent.',
      access: 'none',
      input: z.object({}),
      run: async (_input, context) => {
        const child = await context.spawnSubagent!({
          description: 'count',
          prompt: 'count them',
          output: findings,
        });
        return `output: ${JSON.stringify(child.output)} (${child.reason})`;
      },
    });
    const model = routedModel({
      go: [{ toolCalls: [{ name: 'count_files', input: {} }] }, { text: 'Counted.' }],
      'count them': [{ json: { files: [], count: 0 } }],
    });
    const system = makeSystem({ model, tools: [counted] });
    const parent = await system.createAgent({ id: 'parent' });
    await parent.run('go');
    const result = parent.log().find((event) => isEvent(event, 'tool.result'));
    expect(result?.data.content).toBe('output: {"files":[],"count":0} (completed)');
  });

  it('refuses a bad output schema when the tool is defined', () => {
    expect(() => taskTool({ output: 42 } as never)).toThrow(ConfigError);
    expect(() => taskTool({ output: z.string() } as never)).toThrow(
      /^taskTool: output must describe a JSON object/,
    );
  });
});

describe('a recorded tree with a typed subagent', () => {
  const tempFolder = useTempFolders('agentchart-typed-tree');

  it('replays byte for byte, the child checked with its recorded verdicts', async () => {
    const folder = await tempFolder('sessions');
    const model = routedModel({
      delegate: [
        { toolCalls: [{ name: 'task', input: { description: 'find', prompt: 'find files' } }] },
        { text: 'Parent done.' },
      ],
      'find files': [{ text: 'Two.' }, { json: { files: ['a.ts'], count: 1 } }],
    });
    const tools = [echoTool, taskTool({ output: findings })];
    const system = makeSystem({ model, tools, store: fileStore(folder) });
    const parent = await system.createAgent({ id: 'parent' });
    await parent.run('delegate');
    await system.dispose();
    const file = join(folder, 'parent.jsonl');
    await expectReplay(file, { tools });
    const tree = await readRecordingTree(file);
    const [[childId, child]] = [...tree.subagents.entries()] as [[string, LogEvent[]]];
    expect(checks(child)).toEqual([false, true]);
    // The child runs again with the host's schema: a recording that says it asked for other retries diverges.
    const tampered = child.map((event) =>
      isEvent(event, 'turn.start')
        ? { ...event, data: { output: { schema: findingsSchema, maxRetries: 5 } } }
        : event,
    );
    await writeFile(
      join(folder, `${childId}.jsonl`),
      tampered.map((event) => `${JSON.stringify(event)}\n`).join(''),
    );
    const error = await expectReplay(file, { tools }).catch((caught: unknown) => caught);
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect((error as ReplayDivergenceError).message).toContain('data.output.maxRetries');
  });
});

describe('job tasks with typed output', () => {
  it('carries the parsed output of a typed task in its result, and none for a plain one', async () => {
    const model = routedModel(
      { 'typed task': [{ text: 'nope' }, { json: { files: ['x.ts'], count: 1 } }] },
      (request) => ({ text: `done ${firstUser(request)}` }),
    );
    const system = makeSystem({ model });
    const job = system.runJob({
      tasks: [{ prompt: 'typed task', output: findings }, { prompt: 'plain task' }],
      concurrency: 2,
    });
    const results = await job.result;
    expect(results.map(({ index, reason, text, output }) => ({ index, reason, text, output }))).toEqual([
      {
        index: 0,
        reason: 'completed',
        text: '{"files":["x.ts"],"count":1}',
        output: { files: ['x.ts'], count: 1 },
      },
      { index: 1, reason: 'completed', text: 'done plain task', output: undefined },
    ]);
  });

  it('ends a typed task invalid_output with the reason, the job going on', async () => {
    const model = routedModel({ 'typed task': [{ text: 'nope' }] });
    const system = makeSystem({ model });
    const [result] = await system.runJob({
      tasks: [{ prompt: 'typed task', output: findings, maxOutputRetries: 0 }],
      concurrency: 1,
    }).result;
    expect(result?.reason).toBe('invalid_output');
    expect(result?.error).toMatch(/^the model's final answer failed its output check 1 times/);
    expect(result?.output).toBeUndefined();
  });

  it('refuses a task whose output is no schema, naming the task, before any task starts', () => {
    const system = makeSystem({ model: routedModel({}) });
    expect(() =>
      system.runJob({ tasks: [{ prompt: 'a' }, { prompt: 'b', output: 7 as never }], concurrency: 1 }),
    ).toThrow(/^runJob: tasks\[1\]\.output must be a Standard Schema/);
    expect(() =>
      system.runJob({ tasks: [{ prompt: 'a', output: z.number() as never }], concurrency: 1 }),
    ).toThrow(/^runJob: tasks\[0\]\.output must describe a JSON object/);
  });
});

describe('a typed run left queued when its process ended', () => {
  it('runs in the resumed session, checked against the JSON Schema its log recorded', async () => {
    const store = memoryStore();
    const gate = new GateTool('wait');
    // Routed by the first user message ('first'), and by the answers so far: the resumed turn comes after one.
    const model = routedModel({
      first: [
        { toolCalls: [{ name: 'wait', input: { value: 'x' } }] },
        { json: { files: ['a.ts'], count: 'one' } },
        { json: { files: ['a.ts'], count: 1 } },
      ],
    });
    const agent = await makeSystem({ model, tools: [gate.tool], store }).createAgent({ id: 'a' });
    void agent.run('first').catch(() => undefined);
    await until(() => gate.running.size === 1, 'the tool to run');
    const typed = agent.run('count files', { output: findings });
    await agent.dispose();
    await expect(typed).rejects.toThrow(/disposed before input/);

    const resumed = await makeSystem({ model, store }).resumeAgent('a');
    const result = await resumed.whenTurnEnds(2);
    expect(result).toMatchObject({ reason: 'completed', output: { files: ['a.ts'], count: 1 } });
    const start = resumed.log().find((event) => event.turn === 2 && isEvent(event, 'turn.start'));
    expect(start?.data).toEqual({ output: { schema: findingsSchema, maxRetries: 2 } });
    const failed = resumed.log().find((event) => isEvent(event, 'output.checked') && !event.data.valid);
    expect(failed?.data.error).toBe(
      // No zod here: the host's schema went with its process; the logged JSON Schema decides.
      'the answer does not match the schema:\n✖ Instance type "string" is invalid. Expected "integer".\n  → at count',
    );
  });
});
