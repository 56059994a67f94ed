// Where an isolated agent works (`isolation: 'worktree'`): decided at launch, before any stage runs, from
// read-only git questions, so the agent's spec (its workspace, what `session.start` records) is whole
// before the chart starts; the creation stage only makes what this plan names.
import path from 'node:path';
import { ConfigError } from '../../errors/config-error.ts';
import { type GitResult, git } from './git.ts';

/** Where an agent's worktrees live, below the repository's top folder (git-ignored by a `.gitignore` of `*`). */
export const worktreesFolder = path.join('.agentchart', 'worktrees');

/** The branch of the worktree of session `sessionId`. */
export const branchPrefix = 'agentchart/';

/**
 * An isolated agent's worktree as `session.start` records it (`config.worktree`): the repository it belongs
 * to (its top folder), the worktree's folder, its branch, and the commit it started from. A resume finds
 * the worktree again from this; a replay records it again without touching git.
 */
export type WorktreeRecord = { repository: string; path: string; branch: string; baseCommit: string };

/** A launch's isolation: the worktree, and the agent's workspace in it (the same folder of the repository). */
export type WorktreePlan = { record: WorktreeRecord; cwd: string };

/**
 * Plans a new worktree for session `sessionId` of the repository holding `cwd`, starting from its `HEAD`
 * (the commit checked out there, not uncommitted changes). A workspace that is not in a git repository, a
 * repository with no commit yet, or no git at all is a `ConfigError` naming the option.
 */
export async function planWorktree(cwd: string, sessionId: string): Promise<WorktreePlan> {
  const result = await git(cwd, ['rev-parse', '--path-format=absolute', '--show-toplevel', '--show-prefix']);
  if (result.code !== 0) throw notARepository(cwd, result);
  const [repository = '', prefix = ''] = result.stdout.split('\n');
  const head = await git(repository, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.code !== 0)
    throw new ConfigError(
      `isolation: "worktree" needs a commit to start from, and the repository ${repository} has none yet`,
    );
  const worktree = path.join(repository, worktreesFolder, sessionId);
  const record = {
    repository,
    path: worktree,
    branch: `${branchPrefix}${sessionId}`,
    baseCommit: head.stdout.trim(),
  };
  // resolve, not join: the prefix git prints ends with a slash, and a workspace is named without one.
  return { record, cwd: path.resolve(worktree, prefix) };
}

/**
 * The plan of a session whose `session.start` recorded a worktree (a resume): the same worktree, and the
 * workspace it recorded. A record that is not whole is a `ConfigError` (the log was damaged).
 */
export function recordedPlan(config: Record<string, unknown>): WorktreePlan | undefined {
  const recorded = config.worktree;
  if (recorded === undefined) return undefined;
  const record = recorded as Partial<Record<keyof WorktreeRecord, unknown>> | null;
  const fields = ['repository', 'path', 'branch', 'baseCommit'] as const;
  if (!record || typeof config.cwd !== 'string' || fields.some((field) => typeof record[field] !== 'string'))
    throw new ConfigError(
      'session.start records a worktree that is not whole (repository, path, branch, baseCommit)',
    );
  const { repository, path: folder, branch, baseCommit } = record as WorktreeRecord;
  return { record: { repository, path: folder, branch, baseCommit }, cwd: config.cwd };
}

function notARepository(cwd: string, result: GitResult): ConfigError {
  if (result.code === 127)
    return new ConfigError('isolation: "worktree" needs git, and no git command was found on the PATH');
  return new ConfigError(
    `isolation: "worktree" needs a git repository, and the workspace ${cwd} is not in one (${result.stderr.trim()})`,
  );
}
