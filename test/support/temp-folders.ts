// Temporary folders a test makes as it goes (a copy of a log, a restored workspace, a third working
// directory), all removed after the test that made them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Makes `<prefix>-<name>-XXXXXX` folders in the system's temporary folder. */
export type TempFolder = ((name: string) => Promise<string>) & {
  /** Removes `folder` with the others, for one the code under test made (a demo's own folder). */
  adopt(folder: string): void;
};

/** Registers the clean-up in the calling file (or `describe`) and returns the maker of its folders. */
export function useTempFolders(prefix: string): TempFolder {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });
  const make = async (name: string) => {
    const folder = await mkdtemp(join(tmpdir(), `${prefix}-${name}-`));
    folders.push(folder);
    return folder;
  };
  return Object.assign(make, { adopt: (folder: string) => void folders.push(folder) });
}
