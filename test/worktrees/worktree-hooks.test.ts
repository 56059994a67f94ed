// Command hooks of an isolated agent run in its worktree: the hook's working directory and the paths of its
// `if` rule are the agent's worktree, while an agent of the same system that is not isolated has its hooks
// run in the checkout. `CLAUDE_PROJECT_DIR` stays the system's folder, where the hook configuration and
// its scripts are (a script the repository does not track is missing from a worktree; a guard must still
// run). Before, every command hook ran in the system's folder and an `if` rule matched against it: a
// hook guarding the worktree's files never ran, and one that ran checked the wrong checkout.
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, firstUser, routedModel, stepIndex, tickingClock } from '../support/crash-kit.ts';
import { initRepository } from '../support/git-repo.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-worktree-hooks');

describe('command hooks of an isolated agent', () => {
  it('run in its worktree, read `if` paths there, and find scripts in the project', async () => {
    const repository = await realpath(await tempFolder('repo'));
    await initRepository(repository, { 'shared.txt': 'original\n' });
    const record = join(await realpath(await tempFolder('record')), 'hooks.txt');
    const worktree = join(repository, '.agentchart', 'worktrees', 'iso');
    // Each agent writes shared.txt by its absolute path in the folder it works in.
    const model = routedModel({}, (request) => {
      if (stepIndex(request) > 0) return { text: 'done' };
      const folder = firstUser(request) === 'edit in the worktree' ? worktree : repository;
      return {
        toolCalls: [
          { id: 'w1', name: 'write_file', input: { path: join(folder, 'shared.txt'), content: 'x\n' } },
        ],
      };
    });
    const system = createAgentSystem({
      cwd: repository,
      model,
      tools: codingTools(),
      ids: counterIds('s'),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
      hooks: {
        postTool: [
          {
            type: 'command',
            matcher: 'Write',
            // Relative: the agent's own shared.txt, wherever it works.
            if: 'Write(shared.txt)',
            command: `printf '%s %s\\n' "$PWD" "$CLAUDE_PROJECT_DIR" >> ${JSON.stringify(record)}`,
          },
        ],
      },
    });
    const isolated = await system.createAgent({ id: 'iso', isolation: 'worktree' });
    const plain = await system.createAgent({ id: 'plain' });
    expect(await isolated.run('edit in the worktree')).toMatchObject({ reason: 'completed' });
    expect(await plain.run('edit')).toMatchObject({ reason: 'completed' });
    await system.dispose();
    const lines = (await readFile(record, 'utf8')).trim().split('\n');
    expect(lines).toEqual([`${worktree} ${repository}`, `${repository} ${repository}`]);
    expect(await readFile(join(worktree, 'shared.txt'), 'utf8')).toBe('x\n');
  });
});
