// The real `git` binary, run with an argument array (never a shell string), and a queue per repository:
// `git worktree add`/`remove` write `.git/worktrees` and its lock files, so two of them at once in one
// process race; every command that changes a repository's worktrees or branches goes through `serially`.
import { execFile } from 'node:child_process';

/** What one git command printed; `code` is its exit status (127 when git could not be started). */
export type GitResult = { code: number; stdout: string; stderr: string };

/** The variables a calling git (a hook) may have set that would point these commands at another repository. */
const inheritedGitVariables = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX'];

/** Runs `git <args>` in `cwd`; resolves with its output and exit status, never rejects. */
export function git(cwd: string, args: readonly string[]): Promise<GitResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
  for (const name of inheritedGitVariables) delete env[name];
  return new Promise((resolve) => {
    execFile('git', [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? exitCodeOf(error) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Runs `git <args>` and answers its standard output; a failure throws an error that quotes git's words. */
export async function gitOutput(cwd: string, args: readonly string[]): Promise<string> {
  const result = await git(cwd, args);
  if (result.code !== 0) throw new GitCommandError(args, result);
  return result.stdout;
}

/** A git command that exited with a failure: the command and what git said. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    // git's own verdict (`fatal:`, `error:`), without its progress lines; else whatever it printed.
    const lines = (result.stderr.trim() || result.stdout.trim()).split('\n');
    const verdict = lines.filter((line) => /^(fatal|error):/.test(line));
    const said = (verdict.length > 0 ? verdict : lines).slice(0, 4).join(' / ');
    super(`git ${args.join(' ')} failed (exit ${result.code}): ${said || 'no message'}`);
    this.name = 'GitCommandError';
  }
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` after every earlier `serially` call for the same repository (its common git folder) has
 * settled, within this process. Another process's git still takes git's own locks; this only keeps this
 * process's parallel agents from tripping over each other's.
 */
export function serially<T>(repository: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(repository) ?? Promise.resolve();
  const run = before.then(work, work);
  // The queue holds a settled-never-rejecting tail, dropped once nothing follows it.
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(repository, tail);
  void tail.then(() => {
    if (queues.get(repository) === tail) queues.delete(repository);
  });
  return run;
}

function exitCodeOf(error: Error): number {
  const code = (error as NodeJS.ErrnoException & { code?: unknown }).code;
  if (typeof code === 'number') return code;
  // ENOENT: no git binary on the PATH.
  return code === 'ENOENT' ? 127 : 1;
}
