import { stat } from 'node:fs/promises';
import { ConfigError } from '../errors/config-error.ts';

/**
 * Checks that a workspace is a folder, once per folder for a whole system: every agent of a system shares
 * its workspace, and a `stat` per `createAgent` was a tenth of a short run's cost (a round trip to the
 * thread pool). A failed check is not remembered, so a folder made later is found then.
 */
export class WorkspaceCheck {
  private readonly checked = new Set<string>();

  async check(cwd: string): Promise<void> {
    if (this.checked.has(cwd)) return;
    const info = await stat(cwd).catch(() => undefined);
    if (!info?.isDirectory()) throw new ConfigError(`workspace "${cwd}" is not a directory`);
    this.checked.add(cwd);
  }
}
