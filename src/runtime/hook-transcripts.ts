// Where command hooks find the session's transcript (`transcript_path`): one temporary folder per agent
// system, `<tmp>/agentchart-transcripts-XXXXXX/<sessionId>.jsonl`, made on the first command hook that runs
// and removed by `dispose`. Each file is rewritten from the log just before a command hook starts (through
// a temporary name and a rename, so a hook never reads half a file), outside the workspace, so no tool
// call sees it change. Its path never reaches the log.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { messageOf } from '../errors/describe-value.ts';
import { claudeTranscript } from '../hooks/claude-transcript.ts';
import type { LogEvent } from '../session/types.ts';

export class HookTranscripts {
  private folder: Promise<string> | undefined;
  private writes = 0;
  // How many events each file was last written from: the log only grows, so the same count is the same file.
  private readonly written = new Map<string, Promise<number>>();

  /** Writes the transcript of `sessionId` as its log stands and resolves with the file's path. */
  async write(sessionId: string, cwd: string, events: readonly LogEvent[]): Promise<string> {
    const file = await this.fileOf(sessionId);
    const count = events.length;
    if ((await this.written.get(file)?.catch(() => -1)) === count) return file;
    const writing = this.rewrite(file, sessionId, cwd, events).then(() => count);
    this.written.set(file, writing);
    await writing;
    return file;
  }

  private async fileOf(sessionId: string): Promise<string> {
    this.folder ??= mkdtemp(path.join(tmpdir(), 'agentchart-transcripts-')).catch((error: unknown) => {
      // The next hook tries again.
      this.folder = undefined;
      throw error;
    });
    return path.join(await this.folder, `${encodeURIComponent(sessionId)}.jsonl`);
  }

  private async rewrite(file: string, sessionId: string, cwd: string, events: readonly LogEvent[]) {
    const partial = `${file}.${++this.writes}.tmp`;
    await writeFile(partial, claudeTranscript(events, sessionId, cwd), { encoding: 'utf8', mode: 0o600 });
    await rename(partial, file);
  }

  /** Removes the folder, if one was made. */
  async dispose(): Promise<void> {
    const root = await this.folder?.catch(() => undefined);
    if (root === undefined) return;
    await rm(root, { recursive: true, force: true }).catch((error: unknown) => {
      // Left in the system's temporary directory; nothing else depends on it.
      process.emitWarning(`agentchart: could not remove ${root}: ${messageOf(error)}`);
    });
  }
}
