// Agent definition files for tests: the real Claude Code files copied under test/fixtures/agent-definitions
// (see SOURCES.md there) and small files written for one case.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The folder of the real Claude Code sub-agent files. */
export const realDefinitions = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'agent-definitions',
  'claude-code',
);

/** Writes `text` as `folder/file` (creating the folder) and returns the file's path. */
export async function writeDefinition(folder: string, file: string, text: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, file), text);
  return join(folder, file);
}

/** Copies the real file `name` (`code-reviewer.md`, `security-expert.md`) into `folder`; returns its path. */
export async function copyRealDefinition(folder: string, name: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  await copyFile(join(realDefinitions, name), join(folder, name));
  return join(folder, name);
}

/** A definition file's text: front matter of `fields` (written as given), then `body`. */
export function definitionText(fields: Record<string, string>, body: string): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${value}`);
  return `---\n${lines.join('\n')}\n---\n${body}`;
}
