// Tool outputs too long for the model are saved whole by the runtime and shown cut; the model reads the
// rest with `read_file` through a path of their own. This file names those files and resolves that path.
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fnv1a } from '../core/hash.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { isInside } from './workspace.ts';

/**
 * Where saved outputs appear to the model: `/agentchart-outputs/<sessionId>/<file>`. The name is the
 * same wherever the store keeps the files, so the log that mentions it replays byte for byte and stays
 * valid when a session's folder moves with its log.
 */
export const savedOutputRoot = '/agentchart-outputs';

/**
 * Where a system's saved outputs really are, for the file tools.
 * Contract: `folderOf` returns the absolute folder of a session's saved outputs, or undefined when the
 * system keeps none for it; it does not touch the disk.
 */
export interface SavedOutputs {
  folderOf(sessionId: string): string | undefined;
}

const missing = 'names no saved tool output';
const idPattern = /^[A-Za-z0-9._-]{1,128}$/;
const callIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The file name of a call's saved output: `<turn>-<step>-<callId>.txt`, unique in its session (a call id
 * is unique in its step) and the same on every run. A call id that is not a safe file name (a model
 * chose it) is cleaned and gets a hash of the original, so two ids never share a file.
 */
export function savedOutputName(call: { turn: number; step: number; callId: string }): string {
  const safe = callIdPattern.test(call.callId)
    ? call.callId
    : `${call.callId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 48)}.${fnv1a(call.callId).toString(16)}`;
  return `${call.turn}-${call.step}-${safe}.txt`;
}

/** The path the model is given for a saved output. */
export function savedOutputPath(sessionId: string, name: string): string {
  return `${savedOutputRoot}/${sessionId}/${name}`;
}

/**
 * The real path of the saved output a model path names, or undefined when the path is not under
 * `savedOutputRoot` (it is then a workspace path). Read-only access to exactly those files: the path must
 * be `<root>/<sessionId>/<file>` with plain names (no `..`, no further folders), the session's folder
 * must be a real folder (not a symbolic link), and the file's real path must lie inside it, so a link
 * planted in the folder reaches nothing else.
 *
 * @throws WorkspaceError when the path is under the root but names no saved output that may be read.
 */
export async function resolveSavedOutput(
  saved: SavedOutputs | undefined,
  userPath: string,
): Promise<string | undefined> {
  if (userPath !== savedOutputRoot && !userPath.startsWith(`${savedOutputRoot}/`)) return undefined;
  const [sessionId, name, ...rest] = userPath.slice(savedOutputRoot.length + 1).split('/');
  if (sessionId === undefined || name === undefined || rest.length > 0 || !isPlainName(sessionId, name)) {
    throw refused(userPath, 'is not the path of a saved tool output');
  }
  const folder = saved?.folderOf(sessionId);
  if (folder === undefined) throw refused(userPath, missing);
  const folderReal = await realFolder(folder, userPath);
  const file = path.join(folderReal, name);
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    throw refused(userPath, missing);
  }
  if (!isInside(folderReal, real) || real === folderReal) {
    throw refused(userPath, 'leads outside the saved tool outputs through a symbolic link');
  }
  return real;
}

function isPlainName(...names: string[]): boolean {
  return names.every((name) => idPattern.test(name) && name !== '.' && name !== '..');
}

/** The folder's real path, refused when the folder itself is a symbolic link (it could point anywhere). */
async function realFolder(folder: string, userPath: string): Promise<string> {
  try {
    const info = await lstat(folder);
    if (!info.isDirectory()) throw refused(userPath, missing);
    return await realpath(folder);
  } catch (error) {
    if (WorkspaceError.isInstance(error)) throw error;
    throw refused(userPath, missing);
  }
}

function refused(userPath: string, what: string): WorkspaceError {
  return new WorkspaceError(
    what === missing ? 'not_found' : 'outside',
    userPath,
    `${JSON.stringify(userPath)} ${what}. Outside the workspace, only saved tool outputs can be read, ` +
      `with the exact path a result gave (${savedOutputRoot}/<session>/<file>).`,
  );
}
