import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';

/** How a file is opened: to read it, to read and rewrite it in place, or to create or replace it. */
export type OpenMode = 'read' | 'edit' | 'write';

/** A regular file, open. `existed` is its state before opening (undefined when `write` created it). */
export type RegularFile = { handle: FileHandle; existed: Stats | undefined };

/** A path that holds something other than a regular file: a folder, a FIFO, a socket, a device. */
export type NotRegularFile = { kind: string; isDirectory: boolean };

// Windows has neither flag; there, FIFOs and device nodes of this kind do not exist in a workspace.
const nonBlocking = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const flags: Record<OpenMode, number> = {
  read: constants.O_RDONLY | nonBlocking,
  edit: constants.O_RDWR | nonBlocking,
  write: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | nonBlocking,
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

/**
 * Opens a regular file without ever blocking on a special one. Opening a FIFO waits for the other end,
 * and a device may never answer, so either would hold a libuv thread until the process ends (four of them
 * stop all file I/O). The path is checked with `stat` first, so nothing special is opened at all; then, as
 * the path may be swapped between the check and the open, it is opened with `O_NONBLOCK` (which makes a
 * FIFO open return at once) and the handle itself is checked with `fstat`. Callers close the handle.
 * A missing file rejects with ENOENT, except in `write` mode, which creates it.
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
    // A FIFO without a reader (opened for writing) or a socket that appeared since the check.
    if ((error as NodeJS.ErrnoException).code === 'ENXIO')
      return { kind: 'a special file', isDirectory: false };
    throw error;
  }
  let now: NotRegularFile | undefined;
  try {
    now = notRegular(await handle.stat());
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (now === undefined) return { handle, existed };
  await handle.close();
  return now;
}

/** Writes all of `bytes` at the start of an open file and cuts the file to that length. */
export async function replaceContent(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
  await handle.truncate(bytes.length);
}
