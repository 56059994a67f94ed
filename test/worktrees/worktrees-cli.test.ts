// The CLI side of isolation: `agentchart job` with `isolation` in the job file prints the branches its tasks
// kept with the commands to review and merge them (nothing merges); `agentchart worktrees` lists what
// isolated agents left and `--prune` removes what holds no change. Real git, temporary repositories.
import { spawn } from 'node:child_process';
import { realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jobCommand } from '../../src/cli/commands/job.ts';
import { worktreesCommand } from '../../src/cli/commands/worktrees.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { JobTaskResult } from '../../src/runtime/jobs/run-job.ts';
import { finishWorktree, openWorktree } from '../../src/runtime/worktrees/worktree-life.ts';
import { planWorktree } from '../../src/runtime/worktrees/worktree-plan.ts';
import { codingTools } from '../../src/tools/coding-tools.ts';
import { counterIds, firstUser, routedModel, stepIndex, tickingClock } from '../support/crash-kit.ts';
import { agentBranches, gitIn, initRepository } from '../support/git-repo.ts';
import { useTempFolders } from '../support/temp-folders.ts';

const tempFolder = useTempFolders('agentchart-worktrees-cli');

/** The pid of a process that has ended (a lock naming it is a crashed agent's). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

function capture(cwd: string) {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: new PassThrough(),
    env: {},
    cwd,
  };
  return { io, out: () => stdout, err: () => stderr };
}

/** `edit <letter>` writes a file; `look -` changes nothing. */
const model = () =>
  routedModel({}, (request) => {
    const letter = firstUser(request).slice(-1);
    if (letter === '-' || stepIndex(request) > 0) return { text: 'done' };
    return {
      toolCalls: [
        { id: `w${letter}`, name: 'write_file', input: { path: `${letter}.txt`, content: letter } },
      ],
    };
  });

describe('agentchart job and worktrees with isolation', () => {
  it('job prints the kept branches with review and merge commands; worktrees lists and prunes', async () => {
    const repository = await realpath(await tempFolder('repo'));
    const base = await initRepository(repository, { 'README.md': 'hello\n' });
    const file = join(await tempFolder('job'), 'job.json');
    await writeFile(
      file,
      JSON.stringify({ tasks: [{ prompt: 'edit A' }, { prompt: 'look -' }], isolation: 'worktree' }),
    );
    const system = createAgentSystem({
      cwd: repository,
      model: model(),
      tools: codingTools(),
      ids: counterIds('s'),
      clock: tickingClock(),
      projectInstructions: false,
      permissionMode: 'bypass',
    });
    const job = capture(repository);
    expect(await jobCommand(file, { io: job.io, system, json: true })).toBe(0);
    await system.dispose();
    const results = job
      .out()
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as JobTaskResult);
    const kept = results[0]!.worktree!;
    expect([kept.kept, results[1]!.worktree?.kept]).toEqual([true, false]);
    const branch = `agentchart/${results[0]!.sessionId}`;
    expect(job.err().split('\n').slice(-6)).toEqual([
      'agentchart: 1 task(s) kept a branch; review, then merge the ones you want:',
      `  task 0 · ${branch} · 1 file(s) changed · ${kept.path}`,
      `    git -C ${repository} diff ${base}..${branch}`,
      `    git -C ${repository} merge ${branch}`,
      'agentchart: `agentchart worktrees --prune` removes worktrees without a change.',
      '',
    ]);
    // The commands work as printed: the diff shows the task's file; nothing was merged.
    expect(await gitIn(repository, 'diff', '--name-only', `${base}..${branch}`)).toBe('A.txt\n');
    expect((await gitIn(repository, 'rev-parse', 'HEAD')).trim()).toBe(base);

    // What crashed agents would leave (git lists worktrees by folder): an unchanged worktree, and one whose
    // folder was deleted by hand, each locked by its agent's process, now dead. Beside them, one a live
    // agent holds (this process) and one a person locked: those two are listed, never pruned.
    const folder = (session: string) => join(repository, '.agentchart', 'worktrees', session);
    const dead = await deadPid();
    for (const session of ['left', 'gone', 'live', 'mine']) {
      const { record } = await planWorktree(repository, session);
      await openWorktree(record, false);
    }
    for (const session of ['left', 'gone']) {
      await gitIn(repository, 'worktree', 'unlock', folder(session));
      await gitIn(
        repository,
        'worktree',
        'lock',
        '--reason',
        `agentchart: in use by process ${dead}`,
        folder(session),
      );
    }
    await gitIn(repository, 'worktree', 'unlock', folder('mine'));
    await gitIn(repository, 'worktree', 'lock', '--reason', 'reviewing it', folder('mine'));
    await rm(folder('gone'), { recursive: true });
    const listed = capture(repository);
    expect(await worktreesCommand({}, listed.io)).toBe(0);
    expect(listed.out().split('\n')).toEqual([
      'Worktrees of isolated agents:',
      `  agentchart/gone · session gone · folder gone · ${folder('gone')}`,
      `  agentchart/left · session left · unchanged · ${folder('left')}`,
      `  agentchart/live · session live · unchanged · held by an agent in process ${process.pid} · ${folder('live')}`,
      `  agentchart/mine · session mine · unchanged · held by a git worktree lock (reviewing it) · ${folder('mine')}`,
      `  ${branch} · session ${results[0]!.sessionId} · changed · ${kept.path}`,
      '',
    ]);
    const pruned = capture(repository);
    expect(await worktreesCommand({ prune: true }, pruned.io)).toBe(0);
    expect(pruned.out().split('\n')).toEqual([
      'Removed (no change in them):',
      `  agentchart/gone · session gone · folder gone · ${folder('gone')}`,
      `  agentchart/left · session left · unchanged · ${folder('left')}`,
      '',
    ]);
    expect(await agentBranches(repository)).toEqual([branch, 'agentchart/live', 'agentchart/mine'].sort());
    expect(await gitIn(repository, 'worktree', 'list', '--porcelain')).not.toContain('prunable');
    // The live agent's dispose releases its worktree: a prune then removes it.
    const { record: live } = await planWorktree(repository, 'live');
    expect(await finishWorktree(live, 'live')).toMatchObject({ kept: false });
    expect(await agentBranches(repository)).toEqual([branch, 'agentchart/mine'].sort());
  });

  it('worktrees outside a repository is a usage error', async () => {
    const folder = await tempFolder('plain');
    const refused = await worktreesCommand({}, capture(folder).io).catch((error: unknown) => error);
    expect([(refused as { exitCode?: number }).exitCode, (refused as Error).message]).toEqual([
      2,
      `the folder ${folder} is not in a git repository`,
    ]);
  });
});
