import { mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { byteLength } from './output-cap.ts';
import { guardFileErrors } from './tool-failure.ts';
import { resolveInWorkspace, toWorkspacePath } from './workspace.ts';

const input = z.object({
  path: z
    .string()
    .describe('File to write, relative to the workspace root. Missing parent folders are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

/** `write_file`: creates or overwrites a whole file inside the workspace, creating parent folders. */
export function writeFileTool() {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file, or replace the whole content of an existing one, inside the workspace. Parent folders ' +
      'are created as needed. To change part of an existing file, prefer edit_file.',
    input,
    access: 'write',
    run: (args, ctx) =>
      guardFileErrors(args.path, async () => {
        const file = await resolveInWorkspace(ctx.cwd, args.path, { forWrite: true });
        const shown = toWorkspacePath(await realpath(ctx.cwd), file);
        const before = await existingSize(file);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, args.content, { encoding: 'utf8', signal: ctx.signal });
        const bytes = byteLength(args.content);
        return before === undefined
          ? `Created ${shown} (${bytes} bytes).`
          : `Overwrote ${shown} (${bytes} bytes; it held ${before} bytes before).`;
      }),
  });
}

async function existingSize(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
