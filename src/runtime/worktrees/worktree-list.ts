// What isolated agents left in a repository (`agentchart worktrees`): their worktrees, each with its branch,
// session and whether it holds a change; and the prune that removes the ones without (and the ones whose
// folder was deleted by hand, when their branch holds no change either).
import { stat } from 'node:fs/promises';
import { ConfigError } from '../../errors/config-error.ts';
import { git, gitOutput, serially } from './git.ts';
import { baseKey, holdingProcess, sessionOfBranch } from './worktree-life.ts';

/** One worktree an isolated agent left. */
export type LeftWorktree = {
  path: string;
  branch: string;
  session: string;
  /** The commit it started from (unknown for a branch whose base was not recorded). */
  baseCommit: string | undefined;
  /** Commits beyond its base, or uncommitted changes in it (unknown base: counted as changed). */
  changed: boolean;
  /** Its folder is gone (deleted by hand); `git worktree prune` forgets it. */
  missing: boolean;
  /**
   * Why it may not be removed now: a live agent holds it (the process named), or someone locked it with
   * `git worktree lock` (git's reason). Undefined when nobody does; a lock whose agent process is gone is
   * no hold.
   */
  heldBy: string | undefined;
};

/** The worktrees of the repository holding `cwd` whose branch is an agent's (`agentchart/<session>`). */
export async function listWorktrees(cwd: string): Promise<LeftWorktree[]> {
  const top = await git(cwd, ['rev-parse', '--path-format=absolute', '--show-toplevel']);
  if (top.code !== 0) throw new ConfigError(`the folder ${cwd} is not in a git repository`);
  const repository = top.stdout.trim();
  const listing = await gitOutput(repository, ['worktree', 'list', '--porcelain']);
  const left: LeftWorktree[] = [];
  for (const block of listing.split('\n\n')) {
    const lines = block.split('\n');
    const path = field(lines, 'worktree');
    const branch = field(lines, 'branch')?.replace(/^refs\/heads\//, '');
    const session = branch === undefined ? undefined : sessionOfBranch(branch);
    if (path === undefined || branch === undefined || session === undefined) continue;
    const missing = (await stat(path).catch(() => undefined)) === undefined;
    const base = await git(repository, ['config', '--get', baseKey(branch)]);
    const baseCommit = base.code === 0 ? base.stdout.trim() : undefined;
    const changed = await hasChange(repository, { path, branch, baseCommit, missing });
    left.push({ path, branch, session, baseCommit, changed, missing, heldBy: holder(lines) });
  }
  return left;
}

/**
 * Removes what holds no change: worktrees without commits beyond their base and without uncommitted
 * changes, with their branches; then `git worktree prune` forgets folders deleted by hand (their branches
 * stay when they hold commits). A worktree a live agent holds (or someone locked) is left alone; one whose
 * agent process died is released and judged like the rest. Answers what was removed.
 */
export async function pruneWorktrees(cwd: string): Promise<LeftWorktree[]> {
  const left = await listWorktrees(cwd);
  const removed = left.filter((worktree) => !worktree.changed && worktree.heldBy === undefined);
  if (left.length === 0) return [];
  const repository = (
    await gitOutput(cwd, ['rev-parse', '--path-format=absolute', '--show-toplevel'])
  ).trim();
  await serially(repository, async () => {
    for (const worktree of removed) {
      // A lock left by a dead agent process (its worktree is not held: see holder).
      await git(repository, ['worktree', 'unlock', worktree.path]);
      if (!worktree.missing) await gitOutput(repository, ['worktree', 'remove', worktree.path]);
      else await gitOutput(repository, ['worktree', 'prune']);
      await gitOutput(repository, ['branch', '-D', worktree.branch]);
    }
    await gitOutput(repository, ['worktree', 'prune']);
  });
  return removed;
}

async function hasChange(
  repository: string,
  worktree: { path: string; branch: string; baseCommit: string | undefined; missing: boolean },
): Promise<boolean> {
  if (worktree.baseCommit === undefined) return true;
  const ahead = await gitOutput(repository, [
    'rev-list',
    '--count',
    `${worktree.baseCommit}..${worktree.branch}`,
  ]);
  if (Number(ahead.trim()) > 0) return true;
  if (worktree.missing) return false;
  return (await gitOutput(worktree.path, ['status', '--porcelain'])).trim() !== '';
}

/**
 * Who holds a worktree, from its `locked [<reason>]` line: an agent's lock names its process, which holds
 * it while it runs (a process that cannot be asked counts as running: unsure is held); any other lock is
 * its owner's, reported with git's reason.
 */
function holder(lines: readonly string[]): string | undefined {
  const locked = lines.find((line) => line === 'locked' || line.startsWith('locked '));
  if (locked === undefined) return undefined;
  const reason = locked.slice('locked'.length).trim();
  const pid = holdingProcess(reason);
  if (pid === undefined) return reason === '' ? 'a git worktree lock' : `a git worktree lock (${reason})`;
  return processRuns(pid) ? `an agent in process ${pid}` : undefined;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // ESRCH: no such process. EPERM: it runs, as another user's.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function field(lines: readonly string[], name: string): string | undefined {
  const found = lines.find((line) => line.startsWith(`${name} `));
  return found?.slice(name.length + 1);
}
