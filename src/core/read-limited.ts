// Reading a whole file that came from outside (a settings file, a SKILL.md, a session log) as a file and
// nothing else: a FIFO would block the read for ever, a link to /dev/zero would fill memory until the
// string is too long, and a file of gigabytes would do the same more slowly. Each caller states a limit
// no real file reaches and says what it was reading when it refuses.
import { closeSync, readSync } from 'node:fs';
import { openRegularFile, openRegularFileSync } from './regular-file.ts';

/**
 * Why a path was not read, in words that follow its name ("is a named pipe (FIFO), not a file",
 * "is 2.0 MiB, over the limit of 1 MiB"), and whether it is a folder (which callers often word their way).
 */
export type Refused = { refused: string; isDirectory: boolean };

/** What a read gave: the text, or why the file was not read. */
export type TextRead = { text: string } | Refused;

/** The limit of settings files, MCP configurations, job files and SKILL.md files: 1 MiB. */
export const configFileLimit = 1024 * 1024;

/** A byte count in the unit a person reads: "512 bytes", "3.5 KiB", "2.0 MiB", "1 MiB". */
export function describeSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [amount, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KiB'] : [bytes / (1024 * 1024), 'MiB'];
  return `${Number.isInteger(amount) ? amount : amount.toFixed(1)} ${unit}`;
}

const tooLarge = (size: number | undefined, limit: number): Refused => ({
  refused:
    size === undefined
      ? `holds more than the limit of ${describeSize(limit)}`
      : `is ${describeSize(size)}, over the limit of ${describeSize(limit)}`,
  isDirectory: false,
});

/**
 * The bytes of a file read from the start, at most `limit` of them. The size `fstat` gave may be out of
 * date (a file still growing, a /proc file that says 0), so the end of the reads is what counts: the
 * buffer grows up to one byte past the limit, and a read that fills that byte means the file is too large.
 */
class LimitedBuffer {
  private bytes: Buffer;
  private filled = 0;

  constructor(
    size: number,
    private readonly limit: number,
  ) {
    this.bytes = Buffer.allocUnsafe(Math.min(size, limit) + 1);
  }

  /** Where the next read goes, or undefined once more than the limit was read. */
  room(): { buffer: Buffer; offset: number; length: number } | undefined {
    if (this.filled === this.bytes.length) {
      if (this.bytes.length > this.limit) return undefined;
      const grown = Buffer.allocUnsafe(Math.min(this.bytes.length * 2, this.limit + 1));
      this.bytes.copy(grown, 0, 0, this.filled);
      this.bytes = grown;
    }
    return { buffer: this.bytes, offset: this.filled, length: this.bytes.length - this.filled };
  }

  took(count: number): void {
    this.filled += count;
  }

  content(): Buffer {
    return this.bytes.subarray(0, this.filled);
  }
}

/**
 * The bytes of `file` if it is a regular file (symbolic links followed) of at most `limit` bytes; else
 * why not. Never blocks on a FIFO or device (see `openRegularFile`). Operating-system errors (ENOENT,
 * EACCES, ELOOP, ...) reject as they are, for the caller to word.
 */
export async function readRegularFile(file: string, limit: number): Promise<{ bytes: Buffer } | Refused> {
  const opened = await openRegularFile(file, 'read');
  if (!('handle' in opened))
    return { refused: `is ${opened.kind}, not a file`, isDirectory: opened.isDirectory };
  try {
    if (opened.info.size > limit) return tooLarge(opened.info.size, limit);
    const buffer = new LimitedBuffer(opened.info.size, limit);
    for (let room = buffer.room(); room !== undefined; room = buffer.room()) {
      const { bytesRead } = await opened.handle.read(room.buffer, room.offset, room.length, room.offset);
      if (bytesRead === 0) return { bytes: buffer.content() };
      buffer.took(bytesRead);
    }
    return tooLarge(undefined, limit);
  } finally {
    await opened.handle.close();
  }
}

/** `readRegularFile`, decoded as UTF-8 (bytes that are not UTF-8 become U+FFFD, as `readFile` does). */
export async function readRegularText(file: string, limit: number): Promise<TextRead> {
  const read = await readRegularFile(file, limit);
  return 'bytes' in read ? { text: read.bytes.toString('utf8') } : read;
}

/** `readRegularText` for code that must stay synchronous (settings read while a system is created). */
export function readRegularTextSync(file: string, limit: number): TextRead {
  const opened = openRegularFileSync(file);
  if (!('fd' in opened)) return { refused: `is ${opened.kind}, not a file`, isDirectory: opened.isDirectory };
  try {
    if (opened.info.size > limit) return tooLarge(opened.info.size, limit);
    const buffer = new LimitedBuffer(opened.info.size, limit);
    for (let room = buffer.room(); room !== undefined; room = buffer.room()) {
      const bytesRead = readSync(opened.fd, room.buffer, room.offset, room.length, room.offset);
      if (bytesRead === 0) return { text: buffer.content().toString('utf8') };
      buffer.took(bytesRead);
    }
    return tooLarge(undefined, limit);
  } finally {
    closeSync(opened.fd);
  }
}
