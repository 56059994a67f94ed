import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** The files under a skill's folder, relative with `/`, sorted; SKILL.md itself and dot folders left out. */
export async function listSkillFiles(folder: string, signal: AbortSignal): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  signal.throwIfAborted();
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => file !== 'SKILL.md' && !file.split('/').some((part) => part.startsWith('.')))
    .sort();
}
