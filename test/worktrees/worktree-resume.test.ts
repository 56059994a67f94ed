// An isolated agent across a real crash: a child process runs it in its worktree until it is held in a tool,
// prints READY and is SIGKILLed; this process resumes the session, which finds the worktree again (with
// what the killed process wrote in it, uncommitted) and finishes there, on the same branch.
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptUntil } from '../support/child-run.ts';
import { agentBranches, initRepository, worktreeFolders } from '../support/git-repo.ts';
import { useTempFolders } from '../support/temp-folders.ts';
import { killedSession, worktreeKillSystem } from '../support/worktree-kill-kit.ts';

const tempFolder = useTempFolders('agentchart-worktree-kill');

describe('isolation: worktree across a SIGKILL', () => {
  it('resume finds the worktree again and finishes on its branch', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'shared.txt': 'original\n' });
    const dir = await tempFolder('sessions');
    const child = await startScriptUntil('test/fixtures/worktree-kill-child.ts', 'READY', {
      args: [repository, dir],
      timeoutMs: 60_000,
    });
    child.kill('SIGKILL');
    expect((await child.done).signal).toBe('SIGKILL');
    const path = join(repository, '.agentchart', 'worktrees', killedSession);
    expect(await worktreeFolders(repository)).toEqual([repository, path]);
    expect(await readFile(join(path, 'shared.txt'), 'utf8')).toBe('before the kill\n');

    // Resumed from another folder: the recorded worktree is the workspace.
    const system = worktreeKillSystem({ cwd: dir, dir });
    const agent = await system.resumeAgent(killedSession);
    expect(agent.worktree).toEqual({
      repository,
      path,
      branch: `agentchart/${killedSession}`,
      baseCommit: base,
    });
    expect(await worktreeFolders(repository)).toEqual([repository, path]);
    const result = await agent.run('go on');
    expect(result.reason).toBe('completed');
    await agent.dispose();
    await system.dispose();
    expect(agent.worktree).toMatchObject({
      kept: true,
      path,
      branch: `agentchart/${killedSession}`,
      baseCommit: base,
      filesChanged: ['second.txt', 'shared.txt'],
    });
    expect(await agentBranches(repository)).toEqual([`agentchart/${killedSession}`]);
    expect(await readFile(join(path, 'second.txt'), 'utf8')).toBe('after resume\n');
    // session.resumed records the same worktree as session.start.
    const configs = agent
      .log()
      .filter((event) => event.type === 'session.start' || event.type === 'session.resumed')
      .map((event) => (event.data as { config: { worktree: unknown; cwd: unknown } }).config);
    expect(configs.map((config) => [config.cwd, config.worktree])).toEqual([
      [path, { repository, path, branch: `agentchart/${killedSession}`, baseCommit: base }],
      [path, { repository, path, branch: `agentchart/${killedSession}`, baseCommit: base }],
    ]);
  });
});
