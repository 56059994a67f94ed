import { readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod/v4';
import { must, positiveInteger } from '../core/host-schema.ts';
import { defineTool, type ToolOutput } from './define-tool.ts';
import { compareText } from './file-walk.ts';
import { resolveSkillPath } from './skill-files.ts';
import { atWorkspacePath, failure, guardFileErrors } from './tool-failure.ts';
import { parseToolOptions } from './tool-options.ts';

export type ListDirOptions = {
  /** Most entries listed (default 1000). */
  maxEntries?: number;
};

const optionsSchema = z.strictObject({ maxEntries: positiveInteger.optional() }, must('an object'));

const input = z.object({
  path: z.string().optional().describe('Folder to list, relative to the workspace root (default: the root).'),
});

/** `list_dir`: the entries of one folder, sorted, folders marked with a trailing `/`. */
export function listDirTool(options: ListDirOptions = {}) {
  const maxEntries = parseToolOptions(optionsSchema, options, 'listDir').maxEntries ?? 1000;
  return defineTool({
    name: 'list_dir',
    description:
      'List the entries of one folder in the workspace (not recursive), sorted by name. Folders end with "/", ' +
      'symbolic links show their target as "name -> target". Use glob to find files by pattern.',
    input,
    access: 'read',
    concurrencySafe: true,
    run: (args, ctx) =>
      guardFileErrors(args.path ?? '.', async () => {
        // A skill's folder is listed by the absolute path its skill result gave, outside the workspace too.
        const skill =
          args.path === undefined ? undefined : await resolveSkillPath(ctx.skillFolders, args.path);
        if (skill !== undefined) return listFolder(skill.real, skill.shown, maxEntries);
        return atWorkspacePath(ctx.cwd, args.path, ({ real, relative }) =>
          listFolder(real, relative, maxEntries),
        );
      }),
  });
}

async function listFolder(folder: string, shown: string, maxEntries: number): Promise<ToolOutput> {
  if (!(await stat(folder)).isDirectory()) return failure(`${shown} is a file, not a folder; use read_file.`);
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
    compareText(a.name, b.name),
  );
  if (entries.length === 0) return `${shown}/ is empty.`;
  const lines: string[] = [];
  for (const entry of entries.slice(0, maxEntries)) {
    if (entry.isDirectory()) lines.push(`${entry.name}/`);
    else if (entry.isSymbolicLink())
      lines.push(`${entry.name} -> ${await readlink(path.join(folder, entry.name))}`);
    else lines.push(entry.name);
  }
  if (entries.length > maxEntries) {
    lines.push(
      `\n[Showing ${maxEntries} of ${entries.length} entries. Use glob with a pattern to narrow it.]`,
    );
  }
  return lines.join('\n');
}
