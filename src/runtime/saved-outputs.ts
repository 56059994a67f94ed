import { constants } from 'node:fs';
import { lstat, mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LongOutputs } from '../actors/tool-call.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { SessionStore } from '../session/types.ts';
import { type SavedOutputs, savedOutputPath } from '../tools/saved-output.ts';

/**
 * The folders where one agent system saves tool outputs too long for the model: the store's folder
 * beside each log when the store names one (`SessionStore.outputsFolder`), else one temporary folder
 * for the whole system (`<tmp>/agentchart-outputs-XXXXXX/<sessionId>/`), created on the first save and
 * removed by `dispose`. Its random name never reaches the log: the model sees `savedOutputPath`s.
 */
export class SavedOutputFolders implements SavedOutputs {
  private temporary: Promise<string> | undefined;
  private temporaryPath: string | undefined;

  constructor(private readonly store: SessionStore) {}

  folderOf(sessionId: string): string | undefined {
    if (this.store.outputsFolder === undefined) {
      return this.temporaryPath === undefined ? undefined : path.join(this.temporaryPath, sessionId);
    }
    try {
      const folder: unknown = this.store.outputsFolder(sessionId);
      return typeof folder === 'string' && path.isAbsolute(folder) ? folder : undefined;
    } catch {
      // A host store that cannot name the folder has none to read from.
      return undefined;
    }
  }

  /**
   * Writes `content` whole as `name` in the session's folder and makes it durable (fsync) before it
   * resolves, so the log that mentions the file is never written before the file. Rejects with a
   * message fit for the model when it cannot.
   */
  async save(sessionId: string, name: string, content: string): Promise<void> {
    const folder = this.store.outputsFolder
      ? this.folderOf(sessionId)
      : await this.temporaryFolder(sessionId);
    if (folder === undefined) throw new Error('the session store named no folder for it');
    await mkdir(folder, { recursive: true });
    // A folder swapped for a link (a command can do that) would send the write anywhere.
    if (!(await lstat(folder)).isDirectory()) throw new Error(`${folder} is not a folder`);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
    const handle = await open(path.join(folder, name), flags, 0o644);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  /** What the tool calls of one session need: the cap, and saving under this session's folder. */
  forSession(sessionId: string, maxChars: number): LongOutputs {
    return {
      maxChars,
      save: async (name, content) => {
        await this.save(sessionId, name, content);
        return savedOutputPath(sessionId, name);
      },
      saved: this,
    };
  }

  /** Removes the system's temporary folder, if one was made; the store's folders stay with their logs. */
  async dispose(): Promise<void> {
    const root = await this.temporary?.catch(() => undefined);
    if (root === undefined) return;
    await rm(root, { recursive: true, force: true }).catch((error: unknown) => {
      // Left in the system's temporary directory; nothing else depends on it.
      process.emitWarning(`agentchart: could not remove ${root}: ${messageOf(error)}`);
    });
  }

  private async temporaryFolder(sessionId: string): Promise<string> {
    this.temporary ??= mkdtemp(path.join(tmpdir(), 'agentchart-outputs-')).then(
      (root) => {
        this.temporaryPath = root;
        return root;
      },
      (error: unknown) => {
        // The next save tries again.
        this.temporary = undefined;
        throw error;
      },
    );
    return path.join(await this.temporary, sessionId);
  }
}
