// Skills elsewhere: a recording replayed, or a session resumed, where the recorded skill folder is not —
// another home, a moved workspace — and a recording made with the skill tool of before base folders.
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertSameLog, createAgentSystem } from '../../src/index.ts';
import { scripted } from '../../src/providers/scripted.ts';
import { readRecording } from '../../src/replay/expect-replay.ts';
import { replaySession } from '../../src/replay/replay-session.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { runCli } from '../cli/cli-harness.ts';
import { counterIds, tickingClock } from '../support/crash-kit.ts';
import { baseFolder, installSkill, loadThenRun, results, scriptHelp } from '../support/skill-kit.ts';

describe('skills elsewhere', () => {
  let root: string;
  let home: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'agentchart-skills-elsewhere-'));
    home = join(root, 'empty-home');
    await mkdir(home);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a session recorded with the skill at one path replays byte for byte with the skill at another', async () => {
    const workspace = join(root, 'ws');
    await mkdir(workspace, { recursive: true });
    const recordedSkills = join(root, 'home-a', '.claude', 'skills');
    const recordedFolder = await installSkill(recordedSkills);
    const options = {
      tools: codingTools(),
      cwd: workspace,
      ids: counterIds(),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
    } as const;
    const system = createAgentSystem({
      ...options,
      model: scripted(loadThenRun),
      skills: { folders: [recordedSkills] },
    });
    const agent = await system.createAgent({ id: 'a' });
    await agent.run('How do I test my web app with a dev server?');
    const recorded = agent.log();
    await system.dispose();
    const config = recorded[0]!.data.config as { skills: { name: string; folder: string }[] };
    expect(config.skills.map((entry) => [entry.name, entry.folder])).toEqual([
      ['webapp-testing', recordedFolder],
    ]);

    // Another machine: the recorded folder is gone, the skill is installed under another home.
    await rm(join(root, 'home-a'), { recursive: true });
    const replaySkills = join(root, 'home-b', '.claude', 'skills');
    await installSkill(replaySkills);
    const replayed = await replaySession(recorded, {
      setup: { tools: codingTools(), skills: { folders: [replaySkills] } },
    });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
    // The script really ran from the replay's folder: its help, and `pwd` told as the recorded folder.
    expect(
      results(replayed.events)
        .slice(1, 3)
        .map(([, , content]) => content),
    ).toEqual([`${scriptHelp()}[exit code 0]`, `${scriptHelp()}[exit code 0]`]);

    // Without telling the replay where the skill is now, the recorded folder is missing: the skill's load
    // is the first event that differs.
    const lost = await replaySession(recorded, { setup: { tools: codingTools() } });
    const loadResult = recorded.findIndex(
      (event) => event.type === 'tool.result' && event.data.callId === 'load',
    );
    let divergence: unknown;
    try {
      assertSameLog(recorded, lost.events);
    } catch (error) {
      divergence = error;
    }
    expect(divergence).toMatchObject({ name: 'ReplayDivergenceError', seq: loadResult });
  });

  it('a session resumed after its workspace moved runs the skill where the workspace is now', async () => {
    const before = join(root, 'before');
    const skill = await installSkill(join(before, '.claude', 'skills'));
    const store = memoryStore();
    const options = {
      tools: codingTools(),
      store,
      projectInstructions: false,
      permissionMode: 'bypass',
    } as const;
    const first = createAgentSystem({
      ...options,
      cwd: before,
      skills: { folders: [join(before, '.claude', 'skills')] },
      model: scripted([
        { toolCalls: [{ id: 'load', name: 'skill', input: { name: 'webapp-testing' } }] },
        { text: 'Loaded.' },
      ]),
    });
    await (await first.createAgent({ id: 'a' })).run('Load the web testing skill');
    await first.dispose();

    const after = join(root, 'after');
    await rename(before, after);
    const model = scripted([
      (request) => ({
        toolCalls: [
          {
            id: 'help',
            name: 'bash',
            input: { command: `python3 ${baseFolder(request)}/scripts/with_server.py --help` },
          },
        ],
      }),
      { text: 'ok' },
    ]);
    // No folder to find skills in by name: the recorded one is found at its place in the moved workspace.
    const second = createAgentSystem({ ...options, cwd: after, model, skills: { folders: [] } });
    const resumed = await second.resumeAgent('a');
    await resumed.run('Show its help');
    // The model was told the folder of before; the script ran from where it is now.
    expect(results(resumed.log()).at(-1)).toEqual(['help', 'ok', `${scriptHelp()}[exit code 0]`]);
    expect(
      model.requests[0]!.messages.some(
        (message) =>
          message.role === 'tool' && message.content.startsWith(`Base directory for this skill: ${skill}\n`),
      ),
    ).toBe(true);
    await second.dispose();
  });

  it('a session recorded with the tool of before base folders replays byte for byte, its folder found by name', async () => {
    const recorded = await readRecording('test/fixtures/skills-legacy/session.jsonl');
    const replayed = await replaySession(recorded, {
      setup: { tools: codingTools(), skills: { folders: ['.agentchart/skills'] } },
    });
    expect(replayed.stopped).toBeUndefined();
    assertSameLog(recorded, replayed.events);
    expect(
      replayed.events.filter((event) => event.type === 'tool.result').map((event) => event.data.content),
    ).toEqual([
      '<skill name="notes">\n1. Read checklist.md.\n2. Write the notes.\n</skill>\n\nOther files in the skill folder ' +
        '(read them with read_file when the instructions call for them):\n- /agentchart-skills/notes/checklist.md',
      '     1\tMention every fix.',
    ]);
  });

  it('agentchart replay --check finds the recorded skill by name in the recorded workspace', async () => {
    // HOME holds no skills, so the one found is the workspace's.
    const result = await runCli(['replay', 'test/fixtures/skills-legacy/session.jsonl', '--check'], {
      env: { HOME: home },
    });
    expect(result.stdout).toMatch(/Replay check passed: .* 23 events written again, byte for byte\./);
    expect(result.code).toBe(0);
  });
});
