// How write_file and edit_file put new bytes into an existing file. A file with one name is rewritten in
// place (its inode, owner and other attributes stay). A file with more than one name (a hard link, say
// `ln ../outside.txt notes.txt`) is another place's file too, perhaps one outside the workspace: its
// workspace name is replaced by a new file instead, so every other name keeps the old bytes.
import { constants } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { RegularFile } from '../core/regular-file.ts';

/** How the bytes were written: `linksBefore` is set when the file had other names and was replaced. */
export type WriteOutcome = { linksBefore?: number };

// Temporary names are made unique by the process and a counter; O_EXCL refuses any name already taken.
let temporaryCount = 0;
const maxNameTries = 100;

/**
 * Writes `bytes` as the whole content of `file`, open as `opened` (for `edit` or `write`). The link count
 * is read from the open handle (`fstat`), not the path, so it is the count of the file about to change.
 * The handle stays open for the caller to close.
 */
export async function writeWholeFile(
  file: string,
  opened: RegularFile,
  bytes: Uint8Array,
): Promise<WriteOutcome> {
  if (opened.info.nlink <= 1) {
    await replaceContent(opened.handle, bytes);
    return {};
  }
  await replaceByRename(file, opened, bytes);
  return { linksBefore: opened.info.nlink };
}

/** Writes all of `bytes` at the start of an open file and cuts the file to that length. */
async function replaceContent(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
  await handle.truncate(bytes.length);
}

/**
 * Writes a new file beside `file` (same folder, so the rename stays on one file system and is atomic),
 * with its permission bits and, where allowed, its owner, then renames it over `file`. `rename` replaces
 * the name itself: were `file` swapped for a symbolic link meanwhile, the link is replaced, never followed.
 */
async function replaceByRename(file: string, opened: RegularFile, bytes: Uint8Array): Promise<void> {
  const { handle, temporary } = await createTemporary(file);
  try {
    try {
      await replaceContent(handle, bytes);
      await handle.chmod(opened.info.mode & 0o7777);
      await keepOwner(handle, opened);
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {
      // Already gone or never renamed away: the failure that matters is the one rethrown.
    });
    throw error;
  }
}

async function createTemporary(file: string): Promise<{ handle: FileHandle; temporary: string }> {
  const folder = path.dirname(file);
  const name = path.basename(file);
  for (let attempt = 0; ; attempt++) {
    const temporary = path.join(folder, `.${name}.${process.pid}-${++temporaryCount}.agentchart-tmp`);
    try {
      // O_EXCL with O_CREAT never follows a symbolic link at that name.
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
      return { handle: await open(temporary, flags, 0o600), temporary };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= maxNameTries) throw error;
    }
  }
}

// Only root may give a file away; anyone else's new file is theirs, as with any editor that saves this way.
async function keepOwner(handle: FileHandle, opened: RegularFile): Promise<void> {
  const mine = await handle.stat();
  if (mine.uid === opened.info.uid && mine.gid === opened.info.gid) return;
  await handle.chown(opened.info.uid, opened.info.gid).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPERM') throw error;
  });
}

/** The sentence a tool's result adds when the file was replaced, so the model knows what happened. */
export function linkNote(shown: string, outcome: WriteOutcome): string {
  if (outcome.linksBefore === undefined) return '';
  return (
    ` ${shown} had ${outcome.linksBefore} hard links: it was replaced by a new file of that name, so the ` +
    'other links keep the old content.'
  );
}
