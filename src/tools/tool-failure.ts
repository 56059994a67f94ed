import { realpath } from 'node:fs/promises';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { ToolOutput } from './define-tool.ts';
import { resolveInWorkspace, toWorkspacePath } from './workspace.ts';

/** A result the model reads as a failure it can correct. */
export function failure(message: string): ToolOutput {
  return { content: message, isError: true };
}

const fileErrors: Record<string, string> = {
  ENOENT: 'does not exist',
  EACCES: 'cannot be accessed (permission denied)',
  EPERM: 'cannot be changed (operation not permitted)',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'has a part that is a file, not a folder',
  ELOOP: 'has too many levels of symbolic links',
  EROFS: 'is on a read-only file system',
};

/**
 * Runs a tool body and turns the failures a model can act on (a refused path, a missing file, a
 * permission problem) into error results. Anything else is a bug or an abort and is rethrown.
 */
export async function guardFileErrors(
  userPath: string,
  body: () => Promise<ToolOutput>,
): Promise<ToolOutput> {
  try {
    return await body();
  } catch (error) {
    if (WorkspaceError.isInstance(error)) return failure(error.message);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const meaning = code === undefined ? undefined : fileErrors[code];
    if (meaning !== undefined) return failure(`${JSON.stringify(userPath)} ${meaning}.`);
    throw error;
  }
}

/** A path the model named, resolved: as given, the real workspace root, the real path, and the path shown. */
export type WorkspaceTarget = { given: string; rootReal: string; real: string; relative: string };

/**
 * Runs `work` on a path the model named (the workspace root when it named none), resolved inside the
 * workspace and required to exist; a path that is refused becomes the result the model reads.
 */
export function atWorkspacePath(
  cwd: string,
  path: string | undefined,
  work: (target: WorkspaceTarget) => Promise<ToolOutput>,
): Promise<ToolOutput> {
  const given = path ?? '.';
  return guardFileErrors(given, async () => {
    const rootReal = await realpath(cwd);
    const real = await resolveInWorkspace(cwd, given, { mustExist: true });
    return work({ given, rootReal, real, relative: toWorkspacePath(rootReal, real) });
  });
}
