// What the model is told about where it works: the workspace, the platform, today's date (from the
// injected clock), the model, and whether the workspace is a git repository with its branch and a short
// status. Gathered here, outside the charts, before the first step of each turn; what it finds is logged
// (`environment`) before the request that carries it, so resume and replay send the same text.
import { execFile } from 'node:child_process';

/** How long `git status` may take before the block says the status is unknown. */
const gitTimeoutMs = 3_000;
/** Status lines shown; a longer status is cut with a count of the rest. */
const maxStatusLines = 20;

export type EnvironmentInput = { cwd: string; now: number; model: string; platform?: string };

/**
 * The environment block for the system prompt. Never throws: a git that fails is described, not raised.
 * `signal` stops `git status` (the step it was for was cancelled).
 */
export async function gatherEnvironment(input: EnvironmentInput, signal?: AbortSignal): Promise<string> {
  const git = await gitFacts(input.cwd, signal);
  return environmentText({ ...input, git });
}

type GitFacts =
  | { kind: 'repository'; branch: string; status: string[] }
  | { kind: 'none' }
  | { kind: 'unknown'; why: string };

export function environmentText(facts: EnvironmentInput & { git: GitFacts }): string {
  const date = new Date(facts.now).toISOString().slice(0, 10);
  const lines = [
    '# Environment',
    `Workspace: ${facts.cwd}`,
    `Platform: ${facts.platform ?? `${process.platform} (${process.arch})`}`,
    `Today's date: ${date}`,
    `Model: ${facts.model}`,
  ];
  const { git } = facts;
  if (git.kind === 'none') lines.push('Git: not a git repository');
  else if (git.kind === 'unknown') lines.push(`Git: unknown (${git.why})`);
  else {
    lines.push(`Git: a repository on branch ${git.branch}`);
    const shown = git.status.slice(0, maxStatusLines);
    const more = git.status.length - shown.length;
    if (shown.length === 0) lines.push('Git status: clean');
    else lines.push('Git status (short):', ...shown, ...(more > 0 ? [`… and ${more} more`] : []));
  }
  return lines.join('\n');
}

/** One `git status --short --branch`: the branch from its first line, the changes from the rest. */
function gitFacts(cwd: string, signal: AbortSignal | undefined): Promise<GitFacts> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve({ kind: 'unknown', why: 'not gathered: the step was cancelled' });
    execFile(
      'git',
      ['status', '--short', '--branch', '--untracked-files=normal'],
      // No locks taken (a status must not get in the way of the person's own git), no pager, no prompts.
      {
        cwd,
        ...(signal ? { signal } : {}),
        timeout: gitTimeoutMs,
        maxBuffer: 1 << 20,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (error) {
          const text = `${stderr}`.trim();
          if (signal?.aborted) resolve({ kind: 'unknown', why: 'stopped: the step was cancelled' });
          else if (/not a git repository/i.test(text)) resolve({ kind: 'none' });
          else if (error.killed) resolve({ kind: 'unknown', why: `git status took over ${gitTimeoutMs} ms` });
          else resolve({ kind: 'unknown', why: text.split('\n')[0] || error.message });
          return;
        }
        const [head = '', ...status] = `${stdout}`.split('\n').filter((line) => line !== '');
        resolve({ kind: 'repository', branch: branchOf(head), status });
      },
    );
  });
}

/** `## main...origin/main [ahead 1]`, `## No commits yet on main`, `## HEAD (no branch)`. */
function branchOf(head: string): string {
  const line = head.replace(/^## /, '');
  const fresh = /^(?:No commits yet on|Initial commit on) (.+)$/.exec(line);
  if (fresh) return `${fresh[1]} (no commits yet)`;
  if (line.startsWith('HEAD (no branch)')) return '(detached HEAD)';
  return line.split('...')[0]!.split(' ')[0]!;
}
