// Planning an isolated agent's worktree asks git read-only questions; what makes isolation impossible is a
// ConfigError naming the option: no git on the PATH, no repository, a repository without a commit.
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { planWorktree } from '../../src/runtime/worktrees/worktree-plan.ts';
import { gitIn, initRepository } from '../support/git-repo.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-worktree-plan');
const path = process.env.PATH;
afterEach(() => {
  process.env.PATH = path;
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'planned',
    (error: unknown) => [ConfigError.isInstance(error), (error as Error).message],
  );

describe('planWorktree', () => {
  it('plans the worktree of a subfolder: the same subfolder of the worktree, from HEAD', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'a.txt': 'a\n' });
    await mkdir(join(repository, 'packages', 'one'), { recursive: true });
    const worktree = join(repository, '.agentchart', 'worktrees', 's1');
    expect(await planWorktree(join(repository, 'packages', 'one'), 's1')).toEqual({
      record: { repository, path: worktree, branch: 'agentchart/s1', baseCommit: base },
      cwd: join(worktree, 'packages', 'one'),
    });
  });

  it('refuses a folder outside a repository, a repository without a commit, and a machine without git', async () => {
    const plain = await tempFolder('plain');
    expect(await refusal(planWorktree(plain, 's1'))).toEqual([
      true,
      expect.stringMatching(
        /^isolation: "worktree" needs a git repository, and the workspace .* is not in one/,
      ),
    ]);
    const empty = await realpath(await tempFolder('empty'));
    await gitIn(empty, 'init', '--quiet');
    expect(await refusal(planWorktree(empty, 's1'))).toEqual([
      true,
      `isolation: "worktree" needs a commit to start from, and the repository ${empty} has none yet`,
    ]);
    process.env.PATH = '';
    expect(await refusal(planWorktree(empty, 's1'))).toEqual([
      true,
      'isolation: "worktree" needs git, and no git command was found on the PATH',
    ]);
  });
});
