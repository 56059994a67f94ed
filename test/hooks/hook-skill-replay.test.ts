// The combined case: one recorded session with hook decisions (a command hook and an in-process
// hook) and a skill load re-runs byte for byte, and the replay runs no hook (the command leaves a mark
// every time it runs; the function counts its calls).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hooks } from '../../src/hooks/hook-types.ts';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';

describe('replay of a session with hook decisions and a skill load', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agentchart-hook-skill-'));
    const skill = join(workspace, '.agentchart', 'skills', 'notes');
    await mkdir(skill, { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      '---\nname: notes\ndescription: How notes are kept here.\n---\nWrite notes to notes.txt.\n',
    );
    await writeFile(
      join(workspace, 'mark.mjs'),
      [
        "import { appendFileSync, readFileSync } from 'node:fs';",
        "const { tool_name } = JSON.parse(readFileSync(0, 'utf8'));",
        "appendFileSync('hook.ran', tool_name + '\\n');",
      ].join('\n'),
    );
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  it('re-runs byte for byte without running the hooks', async () => {
    let calls = 0;
    const hooks: Hooks = {
      preTool: [{ type: 'command', command: 'node mark.mjs' }],
      postTool: [
        ({ toolName }) => {
          calls += 1;
          return toolName === 'write_file' ? { additionalContext: 'checked by the team hook' } : undefined;
        },
      ],
    };
    const system = createAgentSystem({
      model: scripted([
        { toolCalls: [{ id: 's1', name: 'skill', input: { name: 'notes' } }] },
        { toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'notes.txt', content: 'n\n' } }] },
        { text: 'Done.' },
      ]),
      tools: codingTools(),
      cwd: workspace,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'accept-edits',
      skills: true,
      hooks,
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('Take a note');
    const recorded = [...agent.log()];
    await system.dispose();
    const decided = recorded.filter((event) => event.type === 'hook.decided');
    expect(decided.map((event) => [event.data.point, event.data.outcome])).toEqual([
      ['preTool', 'pass'],
      ['postTool', 'pass'],
      ['preTool', 'pass'],
      ['postTool', 'modify'],
    ]);
    const results = recorded
      .filter((event) => event.type === 'tool.result')
      .map((event) => event.data.content);
    expect(results[0]).toContain(
      `Base directory for this skill: ${join(workspace, '.agentchart', 'skills', 'notes')}`,
    );
    expect(results[1]).toContain('checked by the team hook');
    expect(await readFile(join(workspace, 'hook.ran'), 'utf8')).toBe('Skill\nWrite\n');
    expect(calls).toBe(2);

    await rm(join(workspace, 'notes.txt'));
    const replayed = await replaySession(recorded, { setup: { tools: codingTools(), hooks } });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
    expect(replayed.events).toHaveLength(recorded.length);
    expect(await readFile(join(workspace, 'hook.ran'), 'utf8')).toBe('Skill\nWrite\n');
    expect(calls).toBe(2);
  });
});
