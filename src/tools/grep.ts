import { stat } from 'node:fs/promises';
import { z } from 'zod/v4';
import { flag, must, positiveInteger } from '../core/host-schema.ts';
import { describeKind } from '../core/regular-file.ts';
import { defineTool } from './define-tool.ts';
import { specialIgnoreFiles } from './file-walk.ts';
import { compilePattern } from './grep-pattern.ts';
import { findRipgrep, searchWithRipgrep, unsupportedPattern } from './grep-ripgrep.ts';
import { type GrepHit, type GrepOutcome, type GrepQuery, searchWithJavaScript } from './grep-search.ts';
import { byteLength, pageBytes, truncateLine } from './output-cap.ts';
import { atWorkspacePath, failure } from './tool-failure.ts';
import { parseToolOptions } from './tool-options.ts';
import { where } from './workspace.ts';

export type GrepOptions = {
  /** Use ripgrep when `rg` is on PATH (default true); false forces the JavaScript search. */
  useRipgrep?: boolean;
  /** Most output lines, matches and context together (default 250). */
  maxLines?: number;
  /** Most bytes of output (default 50 000; inside an agent system under its `toolOutput.maxChars`). */
  maxBytes?: number;
};

const optionsSchema = z.strictObject(
  { useRipgrep: flag.optional(), maxLines: positiveInteger.optional(), maxBytes: positiveInteger.optional() },
  must('an object'),
);

const maxLineChars = 500;

const input = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Regular expression (RE2 syntax) to search for, e.g. "function\\s+load" or "(?i)todo".'),
  path: z
    .string()
    .optional()
    .describe('File or folder to search, relative to the workspace root (default: root).'),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.test.js".'),
  context: z
    .number()
    .int()
    .min(0)
    .max(20)
    .optional()
    .describe('Lines of context before and after each match.'),
});

/**
 * `grep`: a regular-expression search over file contents. Uses ripgrep when it is installed and a
 * JavaScript search otherwise; both skip `.git`, `node_modules`, ignored and binary files and give the same
 * sorted output: `path:line:text` for matches, `path-line-text` for context, `--` between groups.
 */
export function grepTool(options: GrepOptions = {}) {
  const parsed = parseToolOptions(optionsSchema, options, 'grep');
  const maxLines = parsed.maxLines ?? 250;
  const maxBytes = parsed.maxBytes ?? 50_000;
  const useRipgrep = parsed.useRipgrep ?? true;
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with a regular expression. Returns "path:line:text" for each matching line ' +
      '(context lines as "path-line-text", groups separated by "--"), sorted by path. Skips .git, ' +
      'node_modules, .gitignore-d and binary files. Narrow with path (file or folder) and glob ("*.ts"); ' +
      'add context for surrounding lines. Patterns use RE2 syntax, as ripgrep does: prefix (?i) to ignore ' +
      'case; there is no look-around and no backreference.',
    input,
    access: 'read',
    concurrencySafe: true,
    run: async (args, ctx) => {
      // Both engines read the same syntax; a pattern the linear-time engine refuses runs nowhere.
      const compiled = compilePattern(args.pattern);
      if (typeof compiled === 'string') return failure(compiled);
      return atWorkspacePath(
        ctx.cwd,
        args.path,
        async ({ rootReal, real: target, relative: targetRelative }) => {
          const info = await stat(target);
          const kind = describeKind(info);
          // ripgrep would open a FIFO named on its command line and wait for a writer.
          if (kind !== undefined && !info.isDirectory()) {
            return failure(`${targetRelative} is ${kind}; grep searches regular files and folders only.`);
          }
          const query: GrepQuery = {
            rootReal,
            targetRelative,
            targetIsFile: info.isFile(),
            pattern: args.pattern,
            glob: args.glob,
            context: args.context ?? 0,
            maxHits: maxLines,
            signal: ctx.signal,
            onProgress: ctx.onProgress,
          };
          const { outcome, engine } = await search(query, useRipgrep);
          // The model reads the same output from either engine; a host watching live may want to know.
          ctx.onProgress({ type: 'grep.engine', engine });
          if ('error' in outcome) return failure(outcome.error);
          if (outcome.hits.length === 0) {
            return `No matches for ${JSON.stringify(args.pattern)} in ${where(query.targetRelative)}.`;
          }
          const pageSize = pageBytes(maxBytes, ctx.maxOutputChars);
          return formatHits(outcome.hits, { context: query.context, maxLines, maxBytes: pageSize });
        },
      );
    },
  });
}

/** Which search ran: ripgrep, or the JavaScript search (no `rg` on PATH, or a pattern ripgrep refused). */
export type GrepEngine = 'ripgrep' | 'javascript';

async function search(
  query: GrepQuery,
  useRipgrep: boolean,
): Promise<{ outcome: GrepOutcome; engine: GrepEngine }> {
  const rg = useRipgrep ? await findRipgrep() : undefined;
  // The JavaScript search skips an ignore file that is a FIFO or a device; ripgrep would wait on it.
  if (rg !== undefined && (await specialIgnoreFiles(query.rootReal, query.signal)).length === 0) {
    const outcome = await searchWithRipgrep(rg, query);
    if (outcome !== unsupportedPattern) return { outcome, engine: 'ripgrep' };
  }
  return { outcome: await searchWithJavaScript(query), engine: 'javascript' };
}

/** Formats hits as grep does, capped by line count and bytes with a note saying how to narrow. */
export function formatHits(
  hits: GrepHit[],
  limits: { context: number; maxLines: number; maxBytes: number },
): string {
  const out: string[] = [];
  let bytes = 0;
  let capped = hits.length > limits.maxLines;
  let previous: GrepHit | undefined;
  for (const hit of hits.slice(0, limits.maxLines)) {
    const separate =
      limits.context > 0 &&
      previous !== undefined &&
      (previous.path !== hit.path || previous.line + 1 !== hit.line);
    const line = `${hit.path}${hit.match ? ':' : '-'}${hit.line}${hit.match ? ':' : '-'}${truncateLine(hit.text, maxLineChars)}`;
    const size = byteLength(line) + (separate ? 3 : 0) + 1;
    if (out.length > 0 && bytes + size > limits.maxBytes) {
      capped = true;
      break;
    }
    if (separate) out.push('--');
    out.push(line);
    bytes += size;
    previous = hit;
  }
  const matches = out.filter((line) => line !== '--').length;
  if (capped) {
    const count = `${matches} line${matches === 1 ? '' : 's'}`;
    out.push(`\n[Output capped after ${count}. Narrow the pattern, path or glob to see the rest.]`);
  }
  return out.join('\n');
}
