import { stat } from 'node:fs/promises';
import { z } from 'zod/v4';
import { must, positiveInteger } from '../core/host-schema.ts';
import { defineTool } from './define-tool.ts';
import { walkFiles } from './file-walk.ts';
import { atWorkspacePath, failure } from './tool-failure.ts';
import { parseToolOptions } from './tool-options.ts';
import { where } from './workspace.ts';

export type GlobOptions = {
  /** Most paths returned (default 1000). */
  maxResults?: number;
};

const optionsSchema = z.strictObject({ maxResults: positiveInteger.optional() }, must('an object'));

const input = z.object({
  pattern: z.string().min(1).describe('Glob pattern such as "**/*.ts" or "src/**/test-*.js".'),
  path: z
    .string()
    .optional()
    .describe('Folder to search in, relative to the workspace root (default: the root).'),
});

/** Why a glob pattern is refused, or undefined when it is fine: it may not climb out of its folder. */
export function globPatternProblem(pattern: string): string | undefined {
  if (pattern.includes('\0')) return 'The pattern contains a NUL byte.';
  if (pattern.startsWith('/')) return 'The pattern must be relative; pass a folder in path instead.';
  if (pattern.split('/').includes('..'))
    return 'The pattern may not contain ".."; pass a folder in path instead.';
  return undefined;
}

/**
 * `glob`: files matching a pattern, as sorted workspace-relative paths. `.git` and `node_modules` are
 * skipped, and so is everything the workspace's `.gitignore` files ignore.
 */
export function globTool(options: GlobOptions = {}) {
  const maxResults = parseToolOptions(optionsSchema, options, 'glob').maxResults ?? 1000;
  return defineTool({
    name: 'glob',
    description:
      'Find files by glob pattern ("**/*.ts", "src/*.{js,json}"). Returns matching file paths relative to the ' +
      'workspace root, sorted. Skips .git, node_modules and whatever .gitignore ignores; symbolic links are ' +
      'not followed. Use grep to search file contents.',
    input,
    access: 'read',
    concurrencySafe: true,
    run: async (args, ctx) => {
      const problem = globPatternProblem(args.pattern);
      if (problem !== undefined) return failure(problem);
      return atWorkspacePath(
        ctx.cwd,
        args.path,
        async ({ given, rootReal, real, relative: baseRelative }) => {
          if (!(await stat(real)).isDirectory()) return failure(`${given} is a file; path must be a folder.`);
          const files = await walkFiles({
            rootReal,
            baseRelative,
            patterns: [args.pattern],
            signal: ctx.signal,
          });
          if (files.length === 0)
            return `No files match ${JSON.stringify(args.pattern)} in ${where(baseRelative)}.`;
          const shown = files.slice(0, maxResults);
          if (files.length > maxResults) {
            shown.push(
              `\n[Showing the first ${maxResults} of ${files.length} files. Narrow the pattern or the path.]`,
            );
          }
          return shown.join('\n');
        },
      );
    },
  });
}
