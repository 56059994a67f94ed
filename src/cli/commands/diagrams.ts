import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { configFileLimit, readRegularText } from '../../core/read-limited.ts';
import { diagramFiles } from '../../diagrams/diagram-files.ts';
import { ConfigError } from '../../errors/config-error.ts';
import { type CliIo, line } from '../terminal/io.ts';

export type DiagramsFlags = { out: string; check?: boolean };

/** `agentchart diagrams [--out DIR] [--check]`: exit 1 when checking finds a diagram out of date. */
export async function runDiagramsCommand(flags: DiagramsFlags, io: CliIo): Promise<number> {
  const check = flags.check ?? false;
  const result = await diagramsCommand({ outDir: resolve(io.cwd, flags.out), check });
  const stale = result.stale.length > 0;
  line(stale ? io.stderr : io.stdout, diagramsMessage(result, check));
  return stale ? 1 : 0;
}

/** What `diagramsCommand` did: files written (write mode) or found out of date (check mode). */
export type DiagramsResult = { written: string[]; stale: string[] };

/**
 * Writes the statechart diagrams to `outDir` (default `diagrams` under the working directory), or
 * with `check` only compares and lists the files that are missing or differ. Only files whose text
 * changed are written. Shared by `agentchart diagrams` and `npm run diagrams`.
 *
 * @example
 * const { stale } = await diagramsCommand({ outDir: 'diagrams', check: true });
 * if (stale.length > 0) console.error(diagramsMessage({ written: [], stale }, true));
 */
export async function diagramsCommand(options: {
  outDir?: string;
  check?: boolean;
}): Promise<DiagramsResult> {
  const outDir = options.outDir ?? 'diagrams';
  const changed: { path: string; content: string }[] = [];
  for (const file of diagramFiles()) {
    const path = join(outDir, file.name);
    if ((await readIfPresent(path)) !== file.content) changed.push({ path, content: file.content });
  }
  const paths = changed.map((file) => file.path);
  if (options.check) return { written: [], stale: paths };
  if (changed.length > 0) await mkdir(outDir, { recursive: true });
  for (const file of changed) await writeFile(file.path, file.content, 'utf8');
  return { written: paths, stale: [] };
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    const read = await readRegularText(path, configFileLimit);
    // A FIFO or device in the way would block the read, and the write after it: say so instead.
    if (!('text' in read)) throw new ConfigError(`cannot check the diagram ${path}: it ${read.refused}`);
    return read.text;
  } catch (error) {
    // A missing file is simply out of date; anything else (permissions, a folder in the way) is real.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The line(s) to print after `diagramsCommand`, for the CLI and the npm script alike. */
export function diagramsMessage(result: DiagramsResult, check: boolean): string {
  if (check) {
    if (result.stale.length === 0) return 'Diagrams are up to date.';
    return [
      `Stale diagrams: ${result.stale.join(', ')}.`,
      'They are missing or no longer match the machines in src/machines. Run `npm run diagrams` and commit the result.',
    ].join('\n');
  }
  if (result.written.length === 0) return 'Diagrams are up to date; nothing written.';
  return `Wrote ${result.written.join(', ')}.`;
}
