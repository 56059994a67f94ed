import { access, appendFile, mkdir, open, readdir, readFile, rm, truncate } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../errors/config-error.ts';
import { acquireFileLock, isLockHeld } from './file-lock.ts';
import { formatLogLine, parseLogLine, validateSequence } from './schema.ts';
import type { LoadedSession, LogEvent, SessionLock, SessionStore } from './types.ts';

const extension = '.jsonl';
const safeId = /^[A-Za-z0-9._-]+$/;

export type FileStoreOptions = {
  /** fsync after every append (slower; survives power loss, not only a process crash). Default false. */
  fsync?: boolean;
};

/** The session id of a log file path: its base name without `.jsonl`. */
export function sessionIdFromFile(file: string): string {
  const name = basename(file);
  if (!name.endsWith(extension) || name.length === extension.length) {
    throw new ConfigError(`"${file}" is not a session log (expected a <sessionId>${extension} file)`);
  }
  return name.slice(0, -extension.length);
}

/**
 * Where a session log file lives, for a CLI that is handed a path.
 *
 * @example
 * const { dir, sessionId } = sessionFileLocation('runs/abc.jsonl');
 * const session = await fileStore(dir).load(sessionId);
 */
export function sessionFileLocation(file: string): { dir: string; sessionId: string } {
  return { dir: dirname(file), sessionId: sessionIdFromFile(file) };
}

function checkId(sessionId: string): void {
  // The id becomes a file name: refuse anything that could leave the directory.
  if (!safeId.test(sessionId) || sessionId === '.' || sessionId === '..') {
    throw new ConfigError(`invalid session id "${sessionId}": use letters, digits, ".", "_" or "-"`);
  }
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/**
 * Parses the text of a log file. A torn last line (no trailing newline, or not JSON at all) is
 * dropped; `keepBytes` is then the length of the good prefix, which the caller truncates the file to.
 */
export function parseLogText(
  text: string,
  file: string,
): { events: LogEvent[]; keepBytes?: number; warning?: string } {
  const lines = text.split('\n');
  // A complete file ends with "\n", so the last piece is "" unless the last write was torn.
  const tail = lines.pop() ?? '';
  const events: LogEvent[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const isLast = index === lines.length - 1 && tail === '';
    if (isLast && !isJson(line)) return tornAt(events, lines, index, file);
    events.push(parseLogLine(line, index + 1));
  }
  if (tail !== '') return tornAt(events, lines, lines.length, file);
  return { events };
}

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    // Not JSON is the answer, not a failure: the caller treats the line as torn.
    return false;
  }
}

function tornAt(events: LogEvent[], lines: string[], index: number, file: string) {
  const keepBytes = Buffer.byteLength(
    lines
      .slice(0, index)
      .map((line) => `${line}\n`)
      .join(''),
  );
  const warning =
    `${file}: line ${index + 1} was torn (incomplete last write, probably a crash); ` +
    `dropped it and truncated the file to ${keepBytes} bytes`;
  return { events, keepBytes, warning };
}

/**
 * A session store with one JSONL file per session: `<dir>/<sessionId>.jsonl`. The directory is
 * created on demand. Appends to one session are written in call order, each in a single write. A live
 * agent holds `<dir>/<sessionId>.lock`, so two processes never write one session.
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): SessionStore {
  return new FileSessionStore(dir, options);
}

async function writeText(file: string, text: string, fsync: boolean): Promise<void> {
  if (!fsync) return appendFile(file, text);
  const handle = await open(file, 'a');
  try {
    await handle.appendFile(text);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function readSession(sessionId: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) throw new ConfigError(`session "${sessionId}" does not exist (${file})`);
    throw error;
  }
}

class FileSessionStore implements SessionStore {
  readonly kind = 'file';
  // Sessions seen to exist, so an append needs no extra file-system call.
  private readonly known = new Set<string>();
  // Sessions this store holds the lock of.
  private readonly held = new Set<string>();
  // One write queue per session keeps appends in call order even when callers do not await.
  private readonly queues = new Map<string, Promise<void>>();

  private readonly dir: string;
  private readonly options: FileStoreOptions;

  constructor(dir: string, options: FileStoreOptions) {
    this.dir = dir;
    this.options = options;
  }

  async create(sessionId: string): Promise<void> {
    const file = this.pathOf(sessionId);
    await mkdir(this.dir, { recursive: true });
    try {
      const handle = await open(file, 'wx');
      await handle.close();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ConfigError(`session "${sessionId}" already exists (${file})`, { cause: error });
      }
      throw error;
    }
    this.known.add(sessionId);
  }

  async append(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    const file = this.pathOf(sessionId);
    // Serialise now: the caller may reuse or mutate its events after this call returns.
    const text = events.map(formatLogLine).join('');
    return this.enqueue(sessionId, async () => {
      if (!this.known.has(sessionId) && !(await this.exists(sessionId))) {
        throw new ConfigError(`session "${sessionId}" does not exist (${file})`);
      }
      this.known.add(sessionId);
      if (text !== '') await writeText(file, text, this.options.fsync ?? false);
    });
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const file = this.pathOf(sessionId);
    return this.enqueue(sessionId, async () => {
      const parsed = parseLogText(await readSession(sessionId, file), file);
      const warnings: string[] = [];
      if (parsed.keepBytes !== undefined && parsed.warning) {
        if (await this.mayRepair(sessionId)) {
          // Later appends must start on a fresh line, so the torn bytes go now.
          await truncate(file, parsed.keepBytes);
          warnings.push(parsed.warning);
        } else {
          // Another agent holds the session: its next write may complete that line. Read past it only.
          warnings.push(
            parsed.warning.replace(/ and truncated the file.*$/, ' (left as it is: the session is held)'),
          );
        }
      }
      validateSequence(parsed.events);
      this.known.add(sessionId);
      return { events: parsed.events, warnings };
    });
  }

  async exists(sessionId: string): Promise<boolean> {
    try {
      await access(this.pathOf(sessionId));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async remove(sessionId: string): Promise<void> {
    const file = this.pathOf(sessionId);
    return this.enqueue(sessionId, async () => {
      this.known.delete(sessionId);
      await rm(file, { force: true });
    });
  }

  async lock(sessionId: string): Promise<SessionLock> {
    await mkdir(this.dir, { recursive: true });
    const lock = await acquireFileLock(this.lockPathOf(sessionId), `session "${sessionId}"`);
    this.held.add(sessionId);
    return {
      release: async () => {
        this.held.delete(sessionId);
        await lock.release();
      },
    };
  }

  /** A torn line may be cut off only by the session's holder, or while no live agent holds the session. */
  private async mayRepair(sessionId: string): Promise<boolean> {
    return this.held.has(sessionId) || !(await isLockHeld(this.lockPathOf(sessionId)));
  }

  private lockPathOf(sessionId: string): string {
    return `${this.pathOf(sessionId).slice(0, -extension.length)}.lock`;
  }

  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    return names
      .filter((name) => name.endsWith(extension) && name.length > extension.length)
      .map((name) => name.slice(0, -extension.length))
      .sort();
  }

  private pathOf(sessionId: string): string {
    checkId(sessionId);
    return join(this.dir, `${sessionId}${extension}`);
  }

  private enqueue<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const result = (this.queues.get(sessionId) ?? Promise.resolve()).then(work);
    // The queue only orders work; each caller still receives its own failure through `result`.
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(sessionId, settled);
    return result;
  }
}
