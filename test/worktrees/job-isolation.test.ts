// `isolation: 'worktree'` on job tasks and createAgent, with real git in temporary repositories: parallel
// tasks editing the same file each finish on their own branch; an unchanged task leaves nothing behind;
// a workspace outside a repository and a git failure at creation are clear errors that leave nothing.
import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, firstUser, routedModel, stepIndex, tickingClock } from '../support/crash-kit.ts';
import { agentBranches, gitIn, initRepository, worktreeFolders } from '../support/git-repo.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-worktree');

/** Each prompt names a letter: the task writes `from <letter>` into shared.txt, runs a bash, then answers. */
const editingModel = () =>
  routedModel({}, (request) => {
    const letter = firstUser(request).slice(-1);
    const step = stepIndex(request);
    if (letter === '-' || step === 2) return { text: 'done' };
    if (step === 0)
      return {
        toolCalls: [
          {
            id: `w${letter}`,
            name: 'write_file',
            input: { path: 'shared.txt', content: `from ${letter}\n` },
          },
        ],
      };
    return {
      toolCalls: [{ id: `b${letter}`, name: 'bash', input: { command: 'git branch --show-current' } }],
    };
  });

function makeSystem(cwd: string): AgentSystem {
  return createAgentSystem({
    cwd,
    model: editingModel(),
    tools: codingTools(),
    ids: counterIds('s'),
    clock: tickingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
  });
}

describe('isolation: worktree', () => {
  it('three tasks editing the same file in parallel each finish on their own branch with only their change', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'shared.txt': 'original\n' });
    const system = makeSystem(repository);
    const job = system.runJob({
      tasks: ['edit A', 'edit B', 'edit C'].map((prompt) => ({ prompt, isolation: 'worktree' as const })),
      concurrency: 3,
    });
    const results = await job.result;
    await system.dispose();
    expect(results.map((result) => result.reason)).toEqual(['completed', 'completed', 'completed']);
    const branches: string[] = [];
    for (const [index, letter] of ['A', 'B', 'C'].entries()) {
      const { sessionId, worktree } = results[index]!;
      const branch = `agentchart/${sessionId}`;
      branches.push(branch);
      const path = join(repository, '.agentchart', 'worktrees', sessionId!);
      expect(worktree).toEqual({
        repository,
        path,
        branch,
        baseCommit: base,
        kept: true,
        commit: (await gitIn(repository, 'rev-parse', branch)).trim(),
        filesChanged: ['shared.txt'],
        diffStat: ' shared.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)',
      });
      // The branch holds only this task's change, committed for it, on top of the base.
      expect(await gitIn(repository, 'show', `${branch}:shared.txt`)).toBe(`from ${letter}\n`);
      expect(await gitIn(repository, 'log', '--format=%s %P', `${base}..${branch}`)).toBe(
        `agentchart: work of session ${sessionId} ${base}\n`,
      );
      // The worktree is kept, clean, and the bash tool ran inside it (on its branch).
      expect(await readFile(join(path, 'shared.txt'), 'utf8')).toBe(`from ${letter}\n`);
      expect(await gitIn(path, 'status', '--porcelain')).toBe('');
      const { events } = await system.store.load(sessionId!);
      const bash = events.find((event) => event.type === 'tool.result' && event.data.callId === `b${letter}`);
      expect(bash?.data).toEqual({
        callId: `b${letter}`,
        outcome: 'ok',
        content: `${branch}\n[exit code 0]`,
      });
    }
    expect(await agentBranches(repository)).toEqual(branches.sort());
    // The main checkout is untouched, and the worktrees folder does not show in its status.
    expect(await readFile(join(repository, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(await gitIn(repository, 'status', '--porcelain')).toBe('');
    // About thirty git processes: 1.4 s alone, close to the default 20 s with the whole suite on two cores.
  }, 60_000);

  it('a task that changed nothing leaves no worktree and no branch', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'shared.txt': 'original\n' });
    const system = makeSystem(repository);
    const [result] = await system.runJob({
      tasks: [{ prompt: 'look -', isolation: 'worktree' }],
      concurrency: 1,
    }).result;
    await system.dispose();
    const sessionId = result!.sessionId!;
    const path = join(repository, '.agentchart', 'worktrees', sessionId);
    expect(result!.worktree).toEqual({
      repository,
      path,
      branch: `agentchart/${sessionId}`,
      baseCommit: base,
      kept: false,
    });
    expect(await stat(path).catch(() => 'gone')).toBe('gone');
    expect(await agentBranches(repository)).toEqual([]);
    expect(await worktreeFolders(repository)).toEqual([repository]);
    // session.start records where the agent worked.
    const [start] = (await system.store.load(sessionId)).events;
    const config = start!.data.config as Record<string, unknown>;
    expect([config.cwd, config.worktree]).toEqual([
      path,
      { repository, path, branch: `agentchart/${sessionId}`, baseCommit: base },
    ]);
  });

  it('createAgent works in the same folder of the worktree, and says where on the handle', async () => {
    const repository = await realpath(await tempFolder('repo'));
    await initRepository(repository, { 'shared.txt': 'original\n' });
    // A subfolder git does not track: the worktree's checkout lacks it, so the stage makes it.
    await mkdir(join(repository, 'notes'));
    const system = makeSystem(join(repository, 'notes'));
    const agent = await system.createAgent({ isolation: 'worktree' });
    const path = join(repository, '.agentchart', 'worktrees', agent.id);
    expect(agent.worktree).toMatchObject({ path, branch: `agentchart/${agent.id}` });
    expect(await worktreeFolders(repository)).toEqual([repository, path]);
    expect((agent.log()[0]!.data.config as { cwd: unknown }).cwd).toBe(join(path, 'notes'));
    await agent.run('edit Z');
    await agent.dispose();
    expect(agent.worktree).toMatchObject({ kept: true, filesChanged: ['notes/shared.txt'] });
    await system.dispose();
  });

  it('a workspace outside a git repository is a ConfigError naming isolation; the job task fails', async () => {
    const folder = await tempFolder('plain');
    const system = makeSystem(folder);
    const refused = await system.createAgent({ isolation: 'worktree' }).catch((error: unknown) => error);
    expect(ConfigError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(
      /^isolation: "worktree" needs a git repository, and the workspace/,
    );
    const [result] = await system.runJob({
      tasks: [{ prompt: 'edit A', isolation: 'worktree' }],
      concurrency: 1,
    }).result;
    expect([result!.reason, result!.error?.slice(0, 47)]).toEqual([
      'failed',
      'isolation: "worktree" needs a git repository, a',
    ]);
    await system.dispose();
  });

  it('a git failure at creation rolls back: no worktree, no session, the branch there is untouched', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'shared.txt': 'original\n' });
    // A branch of the name the new session's would have: git refuses to make it again.
    await gitIn(repository, 'branch', 'agentchart/taken', base);
    const system = makeSystem(repository);
    const refused = await system
      .createAgent({ id: 'taken', isolation: 'worktree' })
      .catch((error: unknown) => error);
    expect((refused as Error).message).toMatch(
      /^git worktree add -b agentchart\/taken .* failed \(exit 255\): fatal: a branch named 'agentchart\/taken' already exists$/,
    );
    expect(await worktreeFolders(repository)).toEqual([repository]);
    expect(await agentBranches(repository)).toEqual(['agentchart/taken']);
    expect(await system.store.list()).toEqual([]);
    await system.dispose();
  });
});
