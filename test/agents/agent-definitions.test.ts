// Agent definitions at work: `task` and `spawn_agent` with `agent_type` run a child with the definition's
// prompt, its tools narrowed to the parent's (a tool the parent lacks is not granted, and the caller is
// told), its step limit, a mode never looser than the parent's and its output schema; the catalogue is in
// the parent's system prompt and `session.start`.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { agentCatalogueText, discoverAgentDefinitions } from '../../src/settings/agent-definitions.ts';
import { backgroundAgentTools } from '../../src/tools/background-agents.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { taskTool } from '../../src/tools/task.ts';
import { definitionText, writeDefinition } from '../support/agent-definition-kit.ts';
import { counterIds, echoTool, routedModel, stepIndex, tickingClock } from '../support/crash-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const fileTool = (name: string, access: 'read' | 'write') =>
  defineTool({
    name,
    description: name,
    access,
    input: z.object({ path: z.string() }),
    run: async ({ path }) => `${name} ${path}`,
  });
/** The parent's tools: no bash, which the reviewer's `Read, Bash, echo` names. */
const parentTools = [
  echoTool,
  fileTool('read_file', 'read'),
  fileTool('write_file', 'write'),
  fileTool('grep', 'read'),
  fileTool('glob', 'read'),
  taskTool(),
];

/** Writes the definitions these tests use into a new folder and returns it. */
async function definitionsFolder(temp: (name: string) => Promise<string>): Promise<string> {
  const folder = join(await temp('defs'), 'agents');
  await writeDefinition(
    folder,
    'reviewer.md',
    definitionText(
      {
        name: 'reviewer',
        description: 'Reviews a change.',
        tools: 'Read, Bash, echo',
        maxSteps: '2',
        permissionMode: 'bypassPermissions',
      },
      'You review changes.\n',
    ),
  );
  await writeDefinition(
    folder,
    'planner.md',
    definitionText(
      { name: 'planner', description: 'Plans a change.', permissionMode: 'plan' },
      'You plan.\n',
    ),
  );
  await writeDefinition(
    join(folder, 'schemas'),
    'verdict.json',
    '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}',
  );
  await writeDefinition(
    folder,
    'judge.md',
    definitionText(
      { name: 'judge', description: 'Judges.', output: 'schemas/verdict.json', tools: '[]' },
      'You judge.\n',
    ),
  );
  return folder;
}

const task = (prompt: string, extra: Record<string, unknown> = {}) => ({
  name: 'task',
  input: { description: 'delegate', prompt, ...extra },
});

describe('agent definitions: task and spawn_agent with agent_type', () => {
  const temp = useTempFolders('agentchart-definition-runs');
  let system: AgentSystem | undefined;
  afterEach(async () => {
    await system?.dispose();
    system = undefined;
  });
  const makeSystem = (options: Partial<AgentSystemOptions> & Pick<AgentSystemOptions, 'model'>) => {
    system = createAgentSystem({
      tools: parentTools,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'default',
      approve: 'deny',
      ...options,
    });
    return system;
  };
  const childStart = async (sessionId: string) =>
    (await system!.store.load(sessionId)).events[0]!.data.config as Record<string, unknown>;
  const toolNames = (config: Record<string, unknown>) =>
    (config.tools as { name: string }[]).map((tool) => tool.name);

  it("runs the definition's prompt with the parent's tools narrowed, its step limit and no looser mode", async () => {
    const folder = await definitionsFolder(temp);
    const model = routedModel({
      parent: [{ toolCalls: [task('review it', { agent_type: 'reviewer' })] }, { text: 'Parent done.' }],
      // The child would echo forever: its definition's step limit (2) ends its turn.
      'review it': () => ({ toolCalls: [{ name: 'echo', input: { text: 'again' } }] }),
    });
    const sys = makeSystem({ model, agents: { folders: [folder] } });
    const parent = await sys.createAgent({ id: 'parent' });
    expect(await parent.run('parent')).toMatchObject({ reason: 'completed', text: 'Parent done.' });

    const spawned = parent.log().find((event) => event.type === 'agent.spawned');
    const childId = String(spawned?.data.childSessionId);
    const child = await childStart(childId);
    expect(child.system).toBe('You review changes.');
    expect(toolNames(child)).toEqual(['echo', 'read_file']);
    // It asked for bypassPermissions; its parent runs in default, so it does too.
    expect(child.permissionMode).toBe('default');
    const childLog = (await sys.store.load(childId)).events;
    expect(childLog.filter((event) => event.type === 'step.start')).toHaveLength(2);
    const result = parent.log().find((event) => event.type === 'tool.result');
    const content =
      `The subagent (session ${childId}) stopped before completing: max_steps.\n(the subagent gave no final text)\n` +
      'Not given to the agent (its definition names them, and you do not have them): bash.';
    expect(result?.data).toEqual({ callId: 'call_0_0', outcome: 'error', content, error: content });
  });

  it("lists the catalogue in the parent's system prompt and session.start; a stricter mode applies", async () => {
    const folder = await definitionsFolder(temp);
    const model = routedModel({
      parent: [{ toolCalls: [task('plan it', { agent_type: 'planner' })] }, { text: 'Parent done.' }],
      'plan it': [{ text: 'Planned.' }],
    });
    const sys = makeSystem({
      model,
      agents: { folders: [folder] },
      permissionMode: 'bypass',
    });
    const parent = await sys.createAgent({ id: 'parent', instructions: 'You are the parent.' });
    await parent.run('parent');
    // The reviewer names `echo`: a tool of this host's, known only given the host's tools.
    expect((await discoverAgentDefinitions([folder])).skipped).toEqual([
      { file: join(folder, 'reviewer.md'), problem: 'tools names a tool agentchart does not know: echo' },
    ]);
    const known = { knownTools: parentTools.map((tool) => tool.name) };
    const { definitions } = await discoverAgentDefinitions([folder], known);
    const config = parent.log()[0]!.data.config as Record<string, unknown>;
    expect(config.system).toBe(`You are the parent.\n\n${agentCatalogueText(definitions)}`);
    expect(config.agentDefinitions).toEqual(definitions);
    expect(definitions.map((definition) => definition.name)).toEqual(['judge', 'planner', 'reviewer']);
    const childId = String(parent.log().find((event) => event.type === 'agent.spawned')?.data.childSessionId);
    const child = await childStart(childId);
    expect([child.system, child.permissionMode]).toEqual(['You plan.', 'plan']);
    expect(parent.log().find((event) => event.type === 'tool.result')?.data.content).toBe('Planned.');
  });

  it("types the child's answer with the definition's output schema", async () => {
    const folder = await definitionsFolder(temp);
    const model = routedModel({
      parent: [{ toolCalls: [task('judge it', { agent_type: 'judge' })] }, { text: 'Parent done.' }],
      'judge it': [{ text: 'It is fine.' }, { text: '{"ok":true}' }],
    });
    const sys = makeSystem({ model, agents: { folders: [folder] } });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    expect(parent.log().find((event) => event.type === 'tool.result')?.data.content).toBe('{"ok":true}');
    const childId = String(parent.log().find((event) => event.type === 'agent.spawned')?.data.childSessionId);
    const child = await childStart(childId);
    // `tools: []`: the child gets none of its parent's tools.
    expect([child.system, toolNames(child)]).toEqual(['You judge.', []]);
  });

  it("runs a definition's model when the system has one of that name, else the parent's", async () => {
    const folder = await definitionsFolder(temp);
    await writeDefinition(
      folder,
      'fast.md',
      definitionText({ name: 'fast', description: 'd', model: 'quick' }, 'Go.\n'),
    );
    await writeDefinition(
      folder,
      'other.md',
      definitionText({ name: 'other', description: 'd', model: 'haiku' }, 'Go.\n'),
    );
    const model = routedModel({
      parent: [
        { toolCalls: [task('one', { agent_type: 'fast' }), task('two', { agent_type: 'other' })] },
        { text: 'Parent done.' },
      ],
      two: [{ text: "From the parent's model." }],
    });
    const quick = routedModel({ one: [{ text: 'From the quick model.' }] });
    const sys = makeSystem({ model, models: { quick }, agents: { folders: [folder] } });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    const results = parent.log().filter((event) => event.type === 'tool.result');
    expect(results.map((event) => event.data.content)).toEqual([
      'From the quick model.',
      "From the parent's model.",
    ]);
    const config = parent.log()[0]!.data.config as { agentDefinitions: { name: string; notes?: string[] }[] };
    expect(
      config.agentDefinitions.filter((entry) => entry.notes).map((entry) => [entry.name, entry.notes]),
    ).toEqual([['other', ['model "haiku" is not one of the system\'s models: the parent\'s model is used']]]);
  });

  it('a definition asking to bypass still asks under a parent in default; dontAsk denies without asking', async () => {
    const folder = await definitionsFolder(temp);
    const write = { name: 'write_file', input: { path: 'a.txt' } };
    await writeDefinition(
      folder,
      'bold.md',
      definitionText(
        { name: 'bold', description: 'd', tools: 'Write', permissionMode: 'bypassPermissions' },
        'Write.\n',
      ),
    );
    await writeDefinition(
      folder,
      'silent.md',
      definitionText(
        { name: 'silent', description: 'd', tools: 'Write', permissionMode: 'dontAsk' },
        'Write.\n',
      ),
    );
    const model = routedModel({
      parent: [
        { toolCalls: [task('bold', { agent_type: 'bold' }), task('silent', { agent_type: 'silent' })] },
        { text: 'Parent done.' },
      ],
      bold: [{ toolCalls: [write] }, { text: 'bold done' }],
      silent: [{ toolCalls: [write] }, { text: 'silent done' }],
    });
    const asked: string[] = [];
    const sys = makeSystem({
      model,
      agents: { folders: [folder] },
      approve: async (request) => {
        asked.push(request.tool);
        return 'allow';
      },
    });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    const children = parent.log().filter((event) => event.type === 'agent.spawned');
    const outcomes = await Promise.all(
      children.map(async (event) => {
        const log = (await sys.store.load(String(event.data.childSessionId))).events;
        const config = log[0]!.data.config as { permissionMode: string };
        const decided = log.find((entry) => entry.type === 'approval.decided')?.data as {
          outcome: string;
          by: string;
        };
        return [config.permissionMode, decided.outcome, decided.by];
      }),
    );
    // The bold child asked the parent's host (and was allowed); the silent one was denied, nobody asked.
    expect(asked).toEqual(['write_file']);
    expect(outcomes).toEqual([
      ['default', 'allow', 'host'],
      ['default', 'deny', 'headless'],
    ]);
  });

  it('refuses an unknown agent type, and agent_type with instructions, as results the model reads', async () => {
    const folder = await definitionsFolder(temp);
    const model = routedModel({
      parent: [
        {
          toolCalls: [
            task('a', { agent_type: 'nobody' }),
            task('b', { agent_type: 'planner', instructions: 'Be brief.' }),
          ],
        },
        { text: 'Parent done.' },
      ],
    });
    const sys = makeSystem({ model, agents: { folders: [folder] } });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    const results = parent.log().filter((event) => event.type === 'tool.result');
    expect(results.map((event) => [event.data.outcome, event.data.content])).toEqual([
      ['error', 'Error: there is no agent type "nobody" (types: judge, planner, reviewer)'],
      ['error', 'Give agent_type or instructions, not both: an agent type brings its own instructions.'],
    ]);
    expect(parent.log().filter((event) => event.type === 'agent.spawned')).toEqual([]);
  });

  it('spawn_agent starts a background child from a definition; a host type of the same name wins', async () => {
    const folder = await definitionsFolder(temp);
    const spawn = (prompt: string, type: string) => ({
      name: 'spawn_agent',
      input: { prompt, agent_type: type },
    });
    const model = routedModel({
      parent: (request) =>
        stepIndex(request) === 0
          ? { toolCalls: [spawn('review it', 'reviewer'), spawn('plan it', 'planner')] }
          : { text: 'Parent done.' },
      'review it': [{ text: 'Reviewed.' }],
      'plan it': [{ text: 'Planned by the host type.' }],
    });
    const background = backgroundAgentTools({
      agentTypes: { planner: { description: "The host's planner.", instructions: 'You plan for the host.' } },
    });
    const sys = makeSystem({ model, tools: [...parentTools, ...background], agents: { folders: [folder] } });
    const parent = await sys.createAgent({ id: 'parent' });
    await parent.run('parent');
    const config = parent.log()[0]!.data.config as Record<string, unknown>;
    // The file planner is skipped, with the reason recorded; the catalogue lists the others.
    expect((config.agentDefinitions as { name: string }[]).map((definition) => definition.name)).toEqual([
      'judge',
      'reviewer',
    ]);
    expect(config.agentDefinitionsSkipped).toEqual([
      {
        file: join(folder, 'planner.md'),
        problem: 'the host defines an agent type "planner" itself (the host\'s wins)',
      },
    ]);
    const spawned = parent.log().filter((event) => event.type === 'agent.spawned');
    const [reviewer, planner] = await Promise.all(
      spawned.map((event) => childStart(String(event.data.childSessionId))),
    );
    expect([reviewer!.system, toolNames(reviewer!), reviewer!.permissionMode]).toEqual([
      'You review changes.',
      ['echo', 'read_file', 'send_message'],
      'default',
    ]);
    expect(planner!.system).toBe('You plan for the host.');
    const started = parent.log().find((event) => event.type === 'tool.result')?.data.content;
    expect(String(started).split('\n').at(-1)).toBe(
      'Not given to the agent (its definition names them, and you do not have them): bash.',
    );
  });
});
