import { closeSync, constants, fstatSync, openSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';

/** How a file is opened: to read it, to read and rewrite it, or to create or rewrite it. */
export type OpenMode = 'read' | 'edit' | 'write';

/**
 * A regular file, open. `existed` is its state before opening (undefined when `write` created it); `info`
 * is the open handle's own state (`fstat`), which is what a check before writing must look at: the path
 * may name another file by then.
 */
export type RegularFile = { handle: FileHandle; existed: Stats | undefined; info: Stats };

/** A path that holds something other than a regular file: a folder, a FIFO, a socket, a device. */
export type NotRegularFile = { kind: string; isDirectory: boolean };

// Windows has neither flag; there, FIFOs and device nodes of this kind do not exist in a workspace.
const nonBlocking = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

// `write` does not truncate on open: the caller decides how to write once it has seen the handle (a file
// with other hard links is replaced, not rewritten), and a truncation would already have changed it.
const flags: Record<OpenMode, number> = {
  read: constants.O_RDONLY | nonBlocking,
  edit: constants.O_RDWR | nonBlocking,
  write: constants.O_WRONLY | constants.O_CREAT | nonBlocking,
};

/** What a path holds, in words for the model ("a named pipe (FIFO)"); undefined for a regular file. */
export function describeKind(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/** Whether a Stats is anything but a regular file, described; undefined for a regular file. */
function notRegular(info: Stats): NotRegularFile | undefined {
  const kind = describeKind(info);
  return kind === undefined ? undefined : { kind, isDirectory: info.isDirectory() };
}

// A FIFO without a reader (opened for writing) or a socket that appeared since the check.
const appearedSpecial = (error: unknown): NotRegularFile | undefined =>
  (error as NodeJS.ErrnoException).code === 'ENXIO'
    ? { kind: 'a special file', isDirectory: false }
    : undefined;

/**
 * Opens a regular file without ever blocking on a special one. Opening a FIFO waits for the other end,
 * and a device may never answer, so either would hold a libuv thread until the process ends (four of them
 * stop all file I/O). The path is checked with `stat` first (symbolic links followed), so nothing special
 * is opened at all; then, as the path may be swapped between the check and the open, it is opened with
 * `O_NONBLOCK` (which makes a FIFO open return at once) and the handle itself is checked with `fstat`.
 * Callers close the handle. A missing file rejects with ENOENT, except in `write` mode, which creates it.
 */
export async function openRegularFile(file: string, mode: OpenMode): Promise<RegularFile | NotRegularFile> {
  const existed = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (mode === 'write' && error.code === 'ENOENT') return undefined;
    throw error;
  });
  const before = existed === undefined ? undefined : notRegular(existed);
  if (before !== undefined) return before;
  let handle: FileHandle;
  try {
    handle = await open(file, flags[mode], 0o666);
  } catch (error) {
    const special = appearedSpecial(error);
    if (special !== undefined) return special;
    throw error;
  }
  let info: Stats;
  try {
    info = await handle.stat();
  } catch (error) {
    await handle.close();
    throw error;
  }
  const now = notRegular(info);
  if (now === undefined) return { handle, existed, info };
  await handle.close();
  return now;
}

/** `openRegularFile(file, 'read')` for code that must stay synchronous: a file descriptor, or what it is. */
export function openRegularFileSync(file: string): { fd: number; info: Stats } | NotRegularFile {
  const before = notRegular(statSync(file));
  if (before !== undefined) return before;
  let fd: number;
  try {
    fd = openSync(file, flags.read);
  } catch (error) {
    const special = appearedSpecial(error);
    if (special !== undefined) return special;
    throw error;
  }
  let info: Stats;
  try {
    info = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const now = notRegular(info);
  if (now === undefined) return { fd, info };
  closeSync(fd);
  return now;
}
