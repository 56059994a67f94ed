import { ConfigError } from '../../errors/config-error.ts';
import type { JobTaskResult } from '../../runtime/jobs/run-job.ts';
import { type LeftWorktree, listWorktrees, pruneWorktrees } from '../../runtime/worktrees/worktree-list.ts';
import { workspaceOf } from '../agent-flags.ts';
import { CliError } from '../cli-error.ts';
import { type CliIo, line, type TextOut } from '../terminal/io.ts';

export type WorktreesFlags = { cwd?: string; prune?: boolean; json?: boolean };

/**
 * `agentchart worktrees`: the worktrees isolated agents left in the repository of the workspace (path,
 * branch, session, whether it holds a change). With `--prune`, the ones without a change are removed with
 * their branches, and folders deleted by hand are forgotten (`git worktree prune`). Exit 0; 2 when the
 * workspace is not in a git repository.
 */
export async function worktreesCommand(flags: WorktreesFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  try {
    const listed = flags.prune ? await pruneWorktrees(cwd) : await listWorktrees(cwd);
    if (flags.json) {
      for (const worktree of listed) line(io.stdout, JSON.stringify(worktree));
      return 0;
    }
    if (listed.length === 0) {
      line(io.stdout, flags.prune ? 'Nothing to prune.' : 'No worktrees of isolated agents.');
      return 0;
    }
    line(io.stdout, flags.prune ? 'Removed (no change in them):' : 'Worktrees of isolated agents:');
    for (const worktree of listed) line(io.stdout, describe(worktree));
    return 0;
  } catch (error) {
    if (ConfigError.isInstance(error)) throw new CliError(error.message, { exitCode: 2, cause: error });
    throw error;
  }
}

function describe(worktree: LeftWorktree): string {
  const state = worktree.missing ? 'folder gone' : worktree.changed ? 'changed' : 'unchanged';
  const held = worktree.heldBy !== undefined ? ` · held by ${worktree.heldBy}` : '';
  return `  ${worktree.branch} · session ${worktree.session} · ${state}${held} · ${worktree.path}`;
}

/**
 * After a job: the branches its isolated tasks kept, with the commands to review and merge each. Nothing
 * merges by itself; the host (a person here) chooses.
 */
export function printKeptBranches(out: TextOut, results: readonly JobTaskResult[]): void {
  const kept = results.flatMap((result) =>
    result.worktree?.kept ? [{ index: result.index, worktree: result.worktree }] : [],
  );
  if (kept.length === 0) return;
  line(out, `agentchart: ${kept.length} task(s) kept a branch; review, then merge the ones you want:`);
  for (const { index, worktree } of kept) {
    const files = worktree.filesChanged.length;
    line(out, `  task ${index} · ${worktree.branch} · ${files} file(s) changed · ${worktree.path}`);
    line(out, `    git -C ${quoted(worktree.repository)} diff ${worktree.baseCommit}..${worktree.branch}`);
    line(out, `    git -C ${quoted(worktree.repository)} merge ${worktree.branch}`);
  }
  line(out, 'agentchart: `agentchart worktrees --prune` removes worktrees without a change.');
}

/** A path as a shell word: quoted when it holds anything but plain path characters. */
function quoted(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
