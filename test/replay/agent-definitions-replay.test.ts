// Agent definitions are part of what a session began with: a replay from another folder, where the files
// are gone or say something else, re-runs the recorded catalogue byte for byte (the children too), and a
// resumed session launches the definitions it recorded, not the files as they are now.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertSameLog } from '../../src/index.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { agentDefinitionFolders } from '../../src/settings/agent-definitions.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { taskTool } from '../../src/tools/task.ts';
import { copyRealDefinition, definitionText, writeDefinition } from '../support/agent-definition-kit.ts';
import { counterIds, routedModel, tickingClock } from '../support/crash-kit.ts';
import { storedLogs } from '../support/mail-kit.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const task = (prompt: string, type: string) => ({
  name: 'task',
  input: { description: 'delegate', prompt, agent_type: type },
});
const tools = () => [...codingTools(), taskTool()];

describe('agent definitions in a replay and a resume', () => {
  const temp = useTempFolders('agentchart-definitions-replay');

  it('replays from another folder, with other files, byte for byte: parent and child', async () => {
    const root = await temp('record');
    const home = join(root, 'home');
    const folders = agentDefinitionFolders(root, { HOME: home });
    // The real Claude Code file, in the workspace's .claude/agents.
    await copyRealDefinition(folders[1]!, 'code-reviewer.md');
    const store = memoryStore();
    const system = createAgentSystem({
      model: routedModel({
        parent: [{ toolCalls: [task('review the diff', 'code-reviewer')] }, { text: 'Reviewed.' }],
        'review the diff': [{ text: 'No findings.' }],
      }),
      tools: tools(),
      store,
      cwd: root,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      agents: { folders },
    });
    const parent = await system.createAgent({ id: 'parent' });
    expect(await parent.run('parent')).toMatchObject({ reason: 'completed', text: 'Reviewed.' });
    await system.dispose();
    const logs = await storedLogs(store);
    const recorded = logs.get('parent')!;
    logs.delete('parent');
    const [childId, childLog] = [...logs][0]!;
    expect((childLog[0]!.data.config as { system: string }).system).toMatch(
      /^You are a focused code reviewer for the 1Code desktop app\./,
    );
    expect(
      (childLog[0]!.data.config as { tools: { name: string }[] }).tools.map((tool) => tool.name),
    ).toEqual(['read_file', 'glob', 'grep', 'bash']);

    // Another folder: the recorded files are gone; this one's code-reviewer says something else.
    await rm(root, { recursive: true });
    const elsewhere = await temp('elsewhere');
    const otherFolders = agentDefinitionFolders(elsewhere, { HOME: join(elsewhere, 'home') });
    await writeDefinition(
      otherFolders[0]!,
      'code-reviewer.md',
      definitionText(
        { name: 'code-reviewer', description: 'Another reviewer.', tools: 'Bash' },
        'Be harsh.\n',
      ),
    );
    const replayed = await replaySession(recorded, {
      setup: { tools: tools(), agents: { folders: otherFolders } },
      subagentLogs: new Map<string, readonly LogEvent[]>([[childId, childLog]]),
    });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
    assertSameLog(childLog, replayed.subagents.get(childId)!);
  });

  it('a resumed session launches the definitions it recorded, and none added since', async () => {
    const first = await temp('first');
    const folder = join(first, 'agents');
    await writeDefinition(
      folder,
      'reviewer.md',
      definitionText({ name: 'reviewer', description: 'Reviews.' }, 'Version one.\n'),
    );
    const store = memoryStore();
    const options = { tools: tools(), store, projectInstructions: false, permissionMode: 'bypass' } as const;
    const before = createAgentSystem({
      ...options,
      cwd: first,
      agents: { folders: [folder] },
      model: routedModel({ first: [{ text: 'Hello.' }] }),
    });
    await (await before.createAgent({ id: 'parent' })).run('first');
    await before.dispose();
    const recordedStart = (await store.load('parent')).events[0]!;

    // The files change, and the session goes on from another folder that has others.
    await writeDefinition(
      folder,
      'reviewer.md',
      definitionText({ name: 'reviewer', description: 'Reviews.' }, 'Version two.\n'),
    );
    const second = await temp('second');
    const secondFolder = join(second, 'agents');
    await writeDefinition(
      secondFolder,
      'newcomer.md',
      definitionText({ name: 'newcomer', description: 'New.' }, 'New here.\n'),
    );
    const model = routedModel({
      first: [
        { text: 'Hello.' },
        { toolCalls: [task('review', 'reviewer'), task('welcome', 'newcomer')] },
        { text: 'Done.' },
      ],
      review: [{ text: 'Reviewed.' }],
    });
    const after = createAgentSystem({
      ...options,
      cwd: second,
      agents: { folders: [folder, secondFolder] },
      model,
    });
    const resumed = await after.resumeAgent('parent');
    await resumed.run('second');
    const events = resumed.log();
    expect(events[0]).toEqual(recordedStart);
    const results = events.filter((event) => event.type === 'tool.result');
    expect(results.map((event) => [event.data.outcome, event.data.content])).toEqual([
      ['ok', 'Reviewed.'],
      ['error', 'Error: there is no agent type "newcomer" (types: reviewer)'],
    ]);
    const childId = String(events.find((event) => event.type === 'agent.spawned')?.data.childSessionId);
    const child = (await store.load(childId)).events[0]!.data.config as { system: string };
    expect(child.system).toBe('Version one.');
    await after.dispose();
  });
});
