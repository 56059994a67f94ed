import { constants, fstatSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/**
 * When an append counts as written: `flush` once the operating system has the bytes (they survive the
 * process crashing), `fsync` once they are on the disk (they survive the machine losing power).
 */
export type Durability = 'flush' | 'fsync';

/** Runs `work` after everything queued before it for the session (the store's per-session order). */
export type SessionQueue = <T>(sessionId: string, work: () => Promise<T>) => Promise<T>;

type Batch = { file: string; texts: string[]; written: Promise<void> };

/**
 * Appends to session files by group commit: appends that arrive while a session's write is in flight (or
 * queued behind a load) wait together and go out as one write (and, with `fsync`, one `datasync`), in
 * call order. Each caller's promise settles when its own text is written, or fails with that write's
 * error. A session whose lock this store holds keeps its file open between writes (one system call per
 * batch instead of three), and each of its writes also checks that the file still has a name: a log
 * deleted under a live agent is reported, as it is when the file is opened.
 *
 * The write to a kept file is synchronous: `write(2)` of a batch into the page cache takes microseconds,
 * while the same write through the thread pool cost ~150 µs of waiting per flush under a busy agent
 * (measured, `npm run bench`'s store rows), and a step waits for two flushes (before its model request, and
 * before its tools run). `datasync` (durability `fsync`) stays asynchronous: it waits for the disk.
 */
export class FileAppender {
  // The batch still taking appends, per session: queued, not yet started.
  private readonly batches = new Map<string, Batch>();
  private readonly handles = new Map<string, FileHandle>();

  constructor(
    private readonly durability: Durability,
    private readonly queue: SessionQueue,
    /** Whether the store holds the session's lock, and so may keep its file open. */
    private readonly keepsOpen: (sessionId: string) => boolean,
  ) {}

  append(sessionId: string, file: string, text: string): Promise<void> {
    const waiting = this.batches.get(sessionId);
    if (waiting && waiting.file === file) {
      waiting.texts.push(text);
      return waiting.written;
    }
    const batch: Batch = { file, texts: [text], written: Promise.resolve() };
    this.batches.set(sessionId, batch);
    batch.written = this.queue(sessionId, () => {
      // From now on appends form the next batch, queued behind this one.
      this.seal(sessionId, batch);
      return this.write(sessionId, file, batch.texts.join(''));
    });
    return batch.written;
  }

  /** Appends after this call start a new batch (called before a load or remove is queued). */
  seal(sessionId: string, batch = this.batches.get(sessionId)): void {
    if (batch && this.batches.get(sessionId) === batch) this.batches.delete(sessionId);
  }

  /** Closes the session's file if it is kept open; run in the session's queue, after its writes. */
  async close(sessionId: string): Promise<void> {
    const handle = this.handles.get(sessionId);
    this.handles.delete(sessionId);
    await handle?.close();
  }

  private async write(sessionId: string, file: string, text: string): Promise<void> {
    const kept = this.handles.get(sessionId);
    const handle = kept ?? (await open(file, constants.O_WRONLY | constants.O_APPEND));
    const keep = this.keepsOpen(sessionId);
    let failed = false;
    try {
      if (kept) {
        writeAll(handle.fd, text);
        if (fstatSync(handle.fd).nlink === 0)
          throw Object.assign(new Error(`${file} was deleted`), { code: 'ENOENT' });
      } else if (text !== '') {
        await handle.appendFile(text);
      }
      if (this.durability === 'fsync') await handle.datasync();
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      if (failed || !keep) {
        this.handles.delete(sessionId);
        await handle.close();
      } else if (!kept) {
        this.handles.set(sessionId, handle);
      }
    }
  }
}

/** Writes all of `text` at the end of the file (`O_APPEND`), however many calls the kernel needs for it. */
function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text);
  while (bytes.length > 0) bytes = bytes.subarray(writeSync(fd, bytes));
}
