// Real git repositories for tests, in temporary folders: a first commit made with a fixed identity given on
// the command line (CI runs as root on a fresh machine, with no git identity configured).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `git <args>` in `cwd` with the test identity; its standard output. */
export async function gitIn(cwd: string, ...args: string[]): Promise<string> {
  const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
  return (await run('git', [...identity, ...args], { cwd })).stdout;
}

/** Makes `folder` a repository whose first commit holds `files` (name → content). Returns its commit. */
export async function initRepository(folder: string, files: Record<string, string>): Promise<string> {
  await gitIn(folder, 'init', '--quiet', '--initial-branch=main');
  for (const [name, content] of Object.entries(files)) await writeFile(join(folder, name), content);
  await gitIn(folder, 'add', '--all');
  await gitIn(folder, 'commit', '--quiet', '-m', 'first');
  return (await gitIn(folder, 'rev-parse', 'HEAD')).trim();
}

/** The agentchart branches of a repository, sorted. */
export async function agentBranches(folder: string): Promise<string[]> {
  const out = await gitIn(folder, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/agentchart/');
  return out
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/** The folders of a repository's worktrees (the main checkout first). */
export async function worktreeFolders(folder: string): Promise<string[]> {
  const out = await gitIn(folder, 'worktree', 'list', '--porcelain');
  return out.split('\n').flatMap((line) => (line.startsWith('worktree ') ? [line.slice(9)] : []));
}
