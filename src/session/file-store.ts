import { access, mkdir, open, readdir, rm, truncate } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod/v4';
import { flag, must, oneOf, parseHostValue } from '../core/host-schema.ts';
import { checkSessionId } from '../core/safe-id.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type Durability, FileAppender } from './file-appender.ts';
import { acquireFileLock } from './file-lock.ts';
import { type ParsedLogText, parseLogText, tornLineLeft } from './log-text.ts';
import { errorCode, pathError } from './path-errors.ts';
import { formatLogLine } from './schema.ts';
import { readSessionText, sessionFilePath, sessionIdsAmong, sessionLockPath } from './session-files.ts';
import type { LoadedSession, LogEvent, SessionLock, SessionStore } from './types.ts';

export type FileStoreOptions = {
  /**
   * When an append resolves: `'flush'` (default) once the operating system has the bytes, which survives
   * the process crashing; `'fsync'` once they are on the disk, which survives power loss (one `datasync`
   * per group of appends).
   */
  durability?: Durability;
  /** @deprecated The same as `durability: 'fsync'`. */
  fsync?: boolean;
};

/** A `SessionStore` over a folder of JSONL files. */
export type FileStore = SessionStore & {
  /**
   * How many sessions this store keeps anything in memory for: a lock it holds or writes still queued.
   * It falls back to 0 once every agent using the store is disposed; nothing is kept per session after
   * that, however many sessions a long-lived host goes through.
   */
  retainedSessions(): number;
};

/**
 * A session store with one JSONL file per session: `<dir>/<sessionId>.jsonl`, and beside it
 * `<dir>/<sessionId>.outputs/` for tool outputs too long for the model. The directory is created on demand. Appends to one session are written in call order, each in a single write. A live
 * agent holds the lock `<dir>/<sessionId>.lock`, so two processes never write one session.
 *
 * A load cuts off only a last line torn by a crash (no newline, after a valid session), and only while
 * holding the session's lock (taken for that moment when nobody holds it); any other damage is a `LogFormatError` naming the file and
 * line, and the file is left as it is. A path that is not a usable session file is a `ConfigError`.
 *
 * @throws ConfigError when `dir` is not a path or an option is unknown or wrong
 * (`fileStore: unknown option "durabilty" (did you mean "durability"?)`).
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): FileStore {
  parseHostValue('fileStore', folderSchema, dir, 'dir');
  return new FileSessionStore(dir, parseHostValue('fileStore', optionsSchema, options));
}

const folderMessage = must('the path of a folder (a non-empty string without NUL bytes)');
const folderSchema = z.string(folderMessage).regex(/^[^\0]+$/, folderMessage);
const optionsSchema = z.strictObject(
  { durability: oneOf(['flush', 'fsync']).optional(), fsync: flag.optional() },
  must('an object'),
);

/** Creates `dir` (and its parents); a file in the way is a `ConfigError`. */
async function ensureDir(dir: string, action: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    // mkdir reports a file where the folder should be as EEXIST.
    const code = errorCode(error) === 'EEXIST' ? { code: 'ENOTDIR' } : error;
    throw pathError(code, action, dir);
  }
}

class FileSessionStore implements FileStore {
  readonly kind = 'file';
  // Sessions this store holds the lock of; an entry goes when its lock is released.
  private readonly held = new Set<string>();
  // One write queue per session keeps appends in call order even when callers do not await. The last
  // queued work removes its session's entry, so an idle session costs nothing.
  private readonly queues = new Map<string, Promise<void>>();

  private readonly dir: string;
  // Resolved once: saved outputs stay where they are if the process later changes its directory.
  private readonly absoluteDir: string;
  // Appends only to an existing file: a session file that is gone is reported, never silently re-created.
  private readonly appender: FileAppender;

  constructor(dir: string, options: FileStoreOptions) {
    this.dir = dir;
    this.absoluteDir = resolve(dir);
    const durability = options.durability ?? (options.fsync ? 'fsync' : 'flush');
    this.appender = new FileAppender(
      durability,
      (sessionId, work) => this.enqueue(sessionId, work),
      (sessionId) => this.held.has(sessionId),
    );
  }

  async create(sessionId: string): Promise<void> {
    const file = this.pathOf(sessionId);
    await ensureDir(this.dir, `create session "${sessionId}"`);
    try {
      const handle = await open(file, 'wx');
      await handle.close();
    } catch (error) {
      if (errorCode(error) === 'EEXIST') {
        throw new ConfigError(`session "${sessionId}" already exists (${file})`, { cause: error });
      }
      throw pathError(error, `create session "${sessionId}"`, file);
    }
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    const file = this.pathOf(sessionId);
    // Serialise now: the caller may reuse or mutate its events after this call returns.
    const text = events.map(formatLogLine).join('');
    try {
      await this.appender.append(sessionId, file, text);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        throw new ConfigError(`session "${sessionId}" does not exist (${file})`, { cause: error });
      }
      throw pathError(error, `write session "${sessionId}"`, file);
    }
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const file = this.pathOf(sessionId);
    this.appender.seal(sessionId);
    return this.enqueue(sessionId, async () => {
      const parsed = parseLogText(await readSessionText(file, sessionId), file);
      if (!parsed.torn) return { events: parsed.events, warnings: [] };
      if (this.held.has(sessionId)) return this.cutTornLine(sessionId, file, parsed);
      // Cut it only while holding the lock, taken for that moment: then no live agent is writing the
      // file, and the cut is made on what the file holds now, not on what it held a moment ago.
      const lock = await this.lockIfFree(sessionId);
      if (!lock) {
        // Another agent holds the session: its next write may complete that line. Read past it only.
        return {
          events: parsed.events,
          warnings: [tornLineLeft(parsed.torn.warning, 'left as it is: the session is held')],
        };
      }
      try {
        return await this.cutTornLine(
          sessionId,
          file,
          parseLogText(await readSessionText(file, sessionId), file),
        );
      } finally {
        await lock.release();
      }
    });
  }

  /** Truncates the torn bytes, so later appends start on a fresh line. Only while holding the lock. */
  private async cutTornLine(sessionId: string, file: string, parsed: ParsedLogText): Promise<LoadedSession> {
    if (!parsed.torn) return { events: parsed.events, warnings: [] };
    await truncate(file, parsed.torn.keepBytes).catch((error: unknown) => {
      throw pathError(error, `repair session "${sessionId}"`, file);
    });
    return { events: parsed.events, warnings: [parsed.torn.warning] };
  }

  /** The session's lock when nobody else holds it (a crashed holder's is taken over); else undefined. */
  private async lockIfFree(sessionId: string): Promise<SessionLock | undefined> {
    const path = this.lockPathOf(sessionId);
    try {
      return await acquireFileLock(path, `session "${sessionId}"`);
    } catch (error) {
      if (ConfigError.isInstance(error)) return undefined;
      throw pathError(error, `lock session "${sessionId}"`, path);
    }
  }

  async exists(sessionId: string): Promise<boolean> {
    const file = this.pathOf(sessionId);
    try {
      await access(file);
      return true;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw pathError(error, `look for session "${sessionId}"`, file);
    }
  }

  async remove(sessionId: string): Promise<void> {
    const file = this.pathOf(sessionId);
    const outputs = this.outputsFolder(sessionId);
    this.appender.seal(sessionId);
    return this.enqueue(sessionId, async () => {
      await this.appender.close(sessionId);
      await rm(file, { force: true }).catch((error: unknown) => {
        throw pathError(error, `remove session "${sessionId}"`, file);
      });
      await rm(outputs, { recursive: true, force: true }).catch((error: unknown) => {
        throw pathError(error, `remove the saved outputs of session "${sessionId}"`, outputs);
      });
    });
  }

  outputsFolder(sessionId: string): string {
    checkSessionId(sessionId);
    return join(this.absoluteDir, `${sessionId}.outputs`);
  }

  async lock(sessionId: string): Promise<SessionLock> {
    const path = this.lockPathOf(sessionId);
    const action = `lock session "${sessionId}"`;
    await ensureDir(this.dir, action);
    const lock = await acquireFileLock(path, `session "${sessionId}"`).catch((error: unknown) => {
      throw pathError(error, action, path);
    });
    this.held.add(sessionId);
    return {
      release: async () => {
        this.held.delete(sessionId);
        // After the writes queued so far; a kept file is closed before another process may take over.
        this.appender.seal(sessionId);
        await this.enqueue(sessionId, () => this.appender.close(sessionId));
        await lock.release().catch((error: unknown) => {
          throw pathError(error, `release session "${sessionId}"`, path);
        });
      },
    };
  }

  retainedSessions(): number {
    return new Set([...this.held, ...this.queues.keys()]).size;
  }

  private lockPathOf(sessionId: string): string {
    checkSessionId(sessionId);
    return sessionLockPath(this.dir, sessionId);
  }

  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw pathError(error, 'list sessions', this.dir);
    }
    return sessionIdsAmong(names);
  }

  private pathOf(sessionId: string): string {
    checkSessionId(sessionId);
    return sessionFilePath(this.dir, sessionId);
  }

  private enqueue<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const result = (this.queues.get(sessionId) ?? Promise.resolve()).then(work);
    // The queue only orders work; each caller still receives its own failure through `result`.
    const settled: Promise<void> = result.then(
      () => this.dequeue(sessionId, settled),
      () => this.dequeue(sessionId, settled),
    );
    this.queues.set(sessionId, settled);
    return result;
  }

  /** Forgets the session's queue when nothing was queued after `last`. */
  private dequeue(sessionId: string, last: Promise<void>): void {
    if (this.queues.get(sessionId) === last) this.queues.delete(sessionId);
  }
}
