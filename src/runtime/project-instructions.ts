import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { openRegularFile } from '../core/regular-file.ts';

/** Files at the workspace root whose contents are instructions for the agent, in the order they are read. */
export const projectInstructionFiles: readonly string[] = ['AGENTS.md', 'CLAUDE.md'];

// An instruction file longer than this is cut, so a stray huge file cannot fill the context window.
const maxFileChars = 40_000;

export type ProjectInstructions = {
  /** A section to append to the system prompt; empty when no file was found. */
  text: string;
  /** The files read, relative to the workspace root. */
  files: string[];
};

/**
 * Reads `AGENTS.md` and `CLAUDE.md` from the workspace root, when present, and formats them as one
 * section for the system prompt. A file that is a link to the other (a common setup) is read once.
 *
 * @example
 * const { text } = await loadProjectInstructions(cwd);
 * const system = text === '' ? base : `${base}\n\n${text}`;
 */
export async function loadProjectInstructions(cwd: string): Promise<ProjectInstructions> {
  const files: string[] = [];
  const sections: string[] = [];
  const seen = new Set<string>();
  for (const name of projectInstructionFiles) {
    const file = await readIfPresent(path.join(cwd, name));
    if (file === undefined || seen.has(file.real)) continue;
    seen.add(file.real);
    const body = file.text.trim();
    if (body === '') continue;
    files.push(name);
    const cut = body.length > maxFileChars;
    const shown = cut
      ? `${body.slice(0, maxFileChars)}\n\n[${name} was cut at ${maxFileChars} characters.]`
      : body;
    sections.push(`## ${name}\n\n${shown}`);
  }
  if (sections.length === 0) return { text: '', files };
  const intro =
    '# Project instructions\n\nThe project keeps these instructions at its root. Follow them when working ' +
    "in this workspace; the user's direct requests come first.";
  return { text: `${intro}\n\n${sections.join('\n\n')}\n`, files };
}

// A FIFO, socket or device named AGENTS.md is skipped like a missing file: opening one could block forever.
async function readIfPresent(file: string): Promise<{ real: string; text: string } | undefined> {
  try {
    const real = await realpath(file);
    const opened = await openRegularFile(real, 'read');
    if (!('handle' in opened)) return undefined;
    try {
      // Reads no more than can be shown (a UTF-8 character is at most 4 bytes), however large the file.
      const buffer = Buffer.alloc(maxFileChars * 4 + 4);
      const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
      return { real, text: buffer.subarray(0, bytesRead).toString('utf8') };
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
