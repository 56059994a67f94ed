// A session recorded in a worktree replays byte for byte from another folder, with the repository (and so
// the worktree) gone: session.start records the worktree, and the replay records it again without making
// one; recorded tools need nothing but the log, live tools run in a restored copy of the workspace.
import { copyFile, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectReplay } from '../../src/replay/expect-replay.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { fileStore } from '../../src/session/file-store.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, routedModel, tickingClock } from '../support/crash-kit.ts';
import { initRepository } from '../support/git-repo.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-worktree-replay');

describe('replay of a session recorded in a worktree', () => {
  it('replays byte for byte from another folder with the repository gone', async () => {
    const repository = await realpath(await tempFolder('repo'));
    await initRepository(repository, { 'shared.txt': 'original\n' });
    const sessions = await tempFolder('sessions');
    const system = createAgentSystem({
      cwd: repository,
      store: fileStore(sessions),
      model: routedModel({
        edit: [
          { toolCalls: [{ id: 'r1', name: 'read_file', input: { path: 'shared.txt' } }] },
          {
            toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'shared.txt', content: 'edited\n' } }],
          },
          { text: 'Edited.' },
        ],
      }),
      tools: codingTools(),
      ids: counterIds('r'),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    const agent = await system.createAgent({ id: 'isolated', isolation: 'worktree' });
    expect(await agent.run('edit')).toMatchObject({ reason: 'completed' });
    await agent.dispose();
    await system.dispose();
    expect(agent.worktree).toMatchObject({ kept: true, filesChanged: ['shared.txt'] });
    const copy = join(await tempFolder('copy'), 'isolated.jsonl');
    await copyFile(join(sessions, 'isolated.jsonl'), copy);
    await rm(repository, { recursive: true, force: true });

    await expectReplay(copy);
    // Live tools run in a copy of the workspace as it was at the start; the worktree's path is mapped onto it.
    const restored = await tempFolder('restored');
    await writeFile(join(restored, 'shared.txt'), 'original\n');
    await expectReplay(copy, { tools: 'live', workspace: restored });
    expect(await readFile(join(restored, 'shared.txt'), 'utf8')).toBe('edited\n');
  });
});
