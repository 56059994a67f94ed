// A recording made in /home/dev/proj replayed with live tools in /srv/ci/proj: the runtime keeps the
// recorded path (in configuration, the prompt, permission checks), and only the tools see the real folder.
import type { AnyTool, ToolOutput } from '../tools/define-tool.ts';

/**
 * Every occurrence of the folder `from` in the strings (and object keys) of `value`, as `to`: `from` itself
 * and paths under it, never a longer name that begins or ends with it (`/home/dev/project` is not under
 * `/home/dev/proj`, nor is `mytest/fixtures` the relative `test/fixtures`). The filesystem root is never mapped (every absolute path is under it).
 */
export function mapFolder<T>(value: T, from: string, to: string): T {
  const folder = from.length > 1 && from.endsWith('/') ? from.slice(0, -1) : from;
  if (folder === '/' || folder === '' || folder === to) return value;
  const pattern = new RegExp(`(?<![\\w.-])${escapeRegExp(folder)}(?![\\w-]|\\.\\w)`, 'g');
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return item.replace(pattern, () => to);
    if (Array.isArray(item)) return item.map(walk);
    if (item && typeof item === 'object')
      return Object.fromEntries(
        Object.entries(item).map(([key, entry]) => [walk(key) as string, walk(entry)]),
      );
    return item;
  };
  return walk(value) as T;
}

/**
 * `tool`, run in `workspace` where the recording ran it in `recorded`: its input's paths are mapped onto the
 * workspace, its output's back onto the recorded folder, so the results read as recorded.
 */
export function inWorkspace(tool: AnyTool, recorded: string, workspace: string): AnyTool {
  if (recorded === workspace) return tool;
  return {
    ...tool,
    run: async (input, context): Promise<ToolOutput> => {
      const output: unknown = await tool.run(mapFolder(input, recorded, workspace), {
        ...context,
        cwd: workspace,
      });
      // Only text is mapped: any other value the runtime turns into a result itself (a circular one too).
      if (typeof output === 'string') return mapFolder(output, workspace, recorded);
      const content = (output as { content?: unknown } | null)?.content;
      if (typeof content !== 'string') return output as ToolOutput;
      return { ...(output as object), content: mapFolder(content, workspace, recorded) };
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
