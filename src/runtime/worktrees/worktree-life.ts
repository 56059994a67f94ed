// The life of an isolated agent's worktree: made (or found again) by a creation stage, removed by that
// stage's undo, and finished by a dispose stage — removed with its branch when the agent changed nothing,
// kept with its branch otherwise. What merges the branch back is the host's choice; nothing here merges.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, gitOutput, serially } from './git.ts';
import { branchPrefix, type WorktreeRecord } from './worktree-plan.ts';

/** What the worktree stage made, so that its undo removes exactly that (a resume may find both made). */
export type WorktreeMade = { worktree: boolean; branch: boolean };

/**
 * How an isolated agent's worktree ended. Kept: the branch holds the agent's work (what it left uncommitted
 * was committed as `agentchart: work of session <id>`), with the files it changed against `baseCommit` and
 * git's `--stat` summary. Not kept: the agent changed nothing; worktree and branch are gone.
 */
export type WorktreeResult =
  | (WorktreeRecord & { kept: true; commit: string; filesChanged: string[]; diffStat: string })
  | (WorktreeRecord & { kept: false });

/**
 * An isolated agent's worktree as its handle shows it (`agent.worktree`): its `repository`, `path`, `branch`
 * and `baseCommit` while the agent lives; after `dispose()`, its `WorktreeResult`.
 */
export type AgentWorktreeState = WorktreeRecord | WorktreeResult;

/** The git config key that holds a branch's base commit (`git branch -D` removes it with the branch). */
export const baseKey = (branch: string) => `branch.${branch}.agentchartBase`;

/**
 * Makes the worktree the record names: a new branch from `baseCommit` (a branch of that name already there
 * is git's error: a new session never takes over another's). A resumed session's is found again: a
 * registered worktree at its path is used as it is, a branch left without its worktree gets one again, and
 * one that is gone altogether is made anew. A git failure removes what this call made and rejects with
 * git's words.
 */
export function openWorktree(record: WorktreeRecord, resumed: boolean): Promise<WorktreeMade> {
  return serially(record.repository, async () => {
    const { repository, path: folder, branch, baseCommit } = record;
    if (resumed && (await isRegistered(repository, folder))) {
      await holdWorktree(repository, folder);
      return { worktree: false, branch: false };
    }
    await ignoreWorktreesFolder(path.dirname(folder));
    if (resumed) {
      // A folder whose worktree is gone (deleted by hand) is forgotten before it is made again.
      await gitOutput(repository, ['worktree', 'prune']);
      const branchRef = `refs/heads/${branch}`;
      if ((await git(repository, ['rev-parse', '--verify', '--quiet', branchRef])).code === 0) {
        await gitOutput(repository, ['worktree', 'add', folder, branch]);
        await holdWorktree(repository, folder);
        return { worktree: true, branch: false };
      }
    }
    await gitOutput(repository, ['worktree', 'add', '-b', branch, folder, baseCommit]);
    try {
      await gitOutput(repository, ['config', baseKey(branch), baseCommit]);
      await holdWorktree(repository, folder);
    } catch (error) {
      await removeMade(record, { worktree: true, branch: true });
      throw error;
    }
    return { worktree: true, branch: true };
  });
}

/** The worktree stage's undo: removes the worktree and the branch if (and only if) that stage made them. */
export function closeWorktree(record: WorktreeRecord, made: WorktreeMade): Promise<void> {
  return serially(record.repository, () => removeMade(record, made));
}

/**
 * The dispose stage: what the agent left uncommitted is committed on its branch, then the branch is
 * compared with `baseCommit`. No commit beyond it: worktree and branch are removed. Else both are kept.
 */
export function finishWorktree(record: WorktreeRecord, sessionId: string): Promise<WorktreeResult> {
  return serially(record.repository, async () => {
    const { repository, path: folder, branch, baseCommit } = record;
    if (await exists(folder)) await commitLeftovers(folder, sessionId);
    await releaseWorktree(repository, folder);
    const ahead = Number(
      (await gitOutput(repository, ['rev-list', '--count', `${baseCommit}..${branch}`])).trim(),
    );
    if (ahead === 0) {
      await removeMade(record, { worktree: await isRegistered(repository, folder), branch: true });
      return { ...record, kept: false };
    }
    const range = `${baseCommit}..${branch}`;
    const names = await gitOutput(repository, ['diff', '--name-only', '-z', range]);
    const diffStat = await gitOutput(repository, ['diff', '--stat', range]);
    const commit = (await gitOutput(repository, ['rev-parse', branch])).trim();
    const filesChanged = names.split('\0').filter((name) => name !== '');
    return { ...record, kept: true, commit, filesChanged, diffStat: diffStat.trimEnd() };
  });
}

/** The session whose worktree a branch is, or undefined for a branch agentchart did not make. */
export function sessionOfBranch(branch: string): string | undefined {
  return branch.startsWith(branchPrefix) ? branch.slice(branchPrefix.length) : undefined;
}

async function removeMade(record: WorktreeRecord, made: WorktreeMade): Promise<void> {
  const { repository, path: folder, branch } = record;
  // --force: a rollback removes what it made even if a stage wrote into it before failing.
  if (made.worktree) {
    await releaseWorktree(repository, folder);
    await gitOutput(repository, ['worktree', 'remove', '--force', folder]);
  }
  if (made.branch) await gitOutput(repository, ['branch', '-D', branch]);
}

/**
 * Commits everything the agent left in its worktree (new files included) as one commit, skipping the
 * repository's commit hooks: the branch is the agent's work as it stands, for the host to review. The
 * repository's identity is used; without one, the commit is authored by `agentchart`.
 */
async function commitLeftovers(folder: string, sessionId: string): Promise<void> {
  const status = await gitOutput(folder, ['status', '--porcelain']);
  if (status.trim() === '') return;
  await gitOutput(folder, ['add', '--all']);
  const identity = (await git(folder, ['config', '--get', 'user.email'])).code === 0;
  const fallback = identity ? [] : ['-c', 'user.name=agentchart', '-c', 'user.email=agentchart@localhost'];
  const message = `agentchart: work of session ${sessionId}`;
  await gitOutput(folder, [...fallback, 'commit', '--no-verify', '--quiet', '-m', message]);
}

/** The reason git records for a worktree a live agent holds: the process, so a dead holder can be told. */
const holdReason = (pid: number) => `agentchart: in use by process ${pid}`;

/** The process an agent's lock reason names, or undefined for a lock that is not an agent's. */
export function holdingProcess(reason: string): number | undefined {
  const match = /^agentchart: in use by process (\d+)$/.exec(reason);
  return match ? Number(match[1]) : undefined;
}

/**
 * Locks the worktree for as long as its agent lives (`git worktree lock`): git then refuses to remove or
 * prune it, and `agentchart worktrees --prune` passes it by. A lock left by a process that died (the
 * agent was killed; this is its resume) is taken over.
 */
async function holdWorktree(repository: string, folder: string): Promise<void> {
  await releaseWorktree(repository, folder);
  await gitOutput(repository, ['worktree', 'lock', '--reason', holdReason(process.pid), folder]);
}

/** Unlocks the worktree (nothing when it is not locked). */
async function releaseWorktree(repository: string, folder: string): Promise<void> {
  await git(repository, ['worktree', 'unlock', folder]);
}

/** Whether `folder` is one of the repository's registered worktrees, with its folder present. */
async function isRegistered(repository: string, folder: string): Promise<boolean> {
  const listing = await gitOutput(repository, ['worktree', 'list', '--porcelain']);
  const registered = listing.split('\n').some((line) => line === `worktree ${folder}`);
  return registered && (await exists(folder));
}

/**
 * A `.gitignore` of `*` in the worktrees folder: git then shows neither the folder nor itself as untracked
 * in the main checkout, without the host editing its own `.gitignore`.
 */
async function ignoreWorktreesFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  const ignore = path.join(folder, '.gitignore');
  if (!(await exists(ignore))) await writeFile(ignore, '*\n');
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}
