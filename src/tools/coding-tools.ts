import { z } from 'zod/v4';
import { must, parseHostValue } from '../core/host-schema.ts';
import { type BashOptions, bashTool } from './bash.ts';
import type { AnyTool } from './define-tool.ts';
import { editFileTool } from './edit-file.ts';
import { type GlobOptions, globTool } from './glob.ts';
import { type GrepOptions, grepTool } from './grep.ts';
import { type ListDirOptions, listDirTool } from './list-dir.ts';
import { type ReadFileOptions, readFileTool } from './read-file.ts';
import { writeFileTool } from './write-file.ts';

const optionsSchema = z.strictObject(
  {
    readFile: z.unknown().optional(),
    listDir: z.unknown().optional(),
    glob: z.unknown().optional(),
    grep: z.unknown().optional(),
    bash: z.unknown().optional(),
  },
  must('an object'),
);

export type CodingToolsOptions = {
  readFile?: ReadFileOptions;
  listDir?: ListDirOptions;
  glob?: GlobOptions;
  /** `{ useRipgrep: false }` forces the JavaScript search even when `rg` is installed. */
  grep?: GrepOptions;
  bash?: BashOptions;
};

/**
 * The built-in coding tools: read_file, write_file, edit_file, list_dir, glob, grep and bash. Each takes its
 * workspace from `ctx.cwd` and confines file paths to it. (The `task` tool for subagents is separate.)
 *
 * @throws ConfigError when an option is invalid, naming it (`codingTools: bash.env.allow must be …`).
 *
 * @example
 * const system = createAgentSystem({ model, tools: codingTools({ bash: { defaultTimeoutMs: 60_000 } }) });
 */
export function codingTools(options: CodingToolsOptions = {}): AnyTool[] {
  // Each tool checks its own options; this checks the outer shape and names a misspelt tool.
  parseHostValue('codingTools', optionsSchema, options);
  return [
    readFileTool(options.readFile),
    writeFileTool(),
    editFileTool(),
    listDirTool(options.listDir),
    globTool(options.glob),
    grepTool(options.grep),
    bashTool(options.bash),
  ];
}
