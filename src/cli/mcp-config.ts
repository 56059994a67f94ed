// Where `agentchart mcp list` and the demo find MCP servers: a `.mcp.json` in Claude Code's shape
// (`{ "mcpServers": { name: { command, args, env } | { url, headers } } }`), in the workspace or named by
// a flag. Parsed once here, `${VAR}` references expanded from the CLI's environment; a bad file is one
// error that names it.
import { join, resolve } from 'node:path';
import { z } from 'zod/v4';
import { must, parseHostValue } from '../core/host-schema.ts';
import { configFileLimit, readRegularText, type TextRead } from '../core/read-limited.ts';
import { messageOf } from '../errors/describe-value.ts';
import { type McpServers, mcpServersFileSchema } from '../mcp/server-config.ts';
import { type ConfigVariables, expandServerVariables } from '../mcp/server-variables.ts';
import { CliError } from './cli-error.ts';

const mcpFileSchema = z.looseObject(
  { mcpServers: mcpServersFileSchema },
  must('an object with "mcpServers"'),
);

/**
 * The servers of `file` (relative to `cwd`), or of `<cwd>/.mcp.json` when no file is named, with their
 * `${VAR}` / `${VAR:-default}` references expanded from `variables`. A missing default file is no
 * servers; a named file that is missing, a file that is not a regular file of at most 1 MiB, a file that
 * does not parse, or a variable that is unset and has no default is an error.
 */
export async function readMcpConfig(
  cwd: string,
  options: { file?: string | undefined; variables: ConfigVariables },
): Promise<{ path: string; servers: McpServers }> {
  const { file, variables } = options;
  const path = file === undefined ? join(cwd, '.mcp.json') : resolve(cwd, file);
  let read: TextRead;
  try {
    read = await readRegularText(path, configFileLimit);
  } catch (error) {
    if (file === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT')
      return { path, servers: {} };
    throw new CliError(`cannot read ${path}: ${messageOf(error)}`, { exitCode: 2 });
  }
  if (!('text' in read)) throw new CliError(`the MCP config ${path} ${read.refused}`, { exitCode: 2 });
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (error) {
    throw new CliError(`${path} is not valid JSON: ${messageOf(error)}`, { exitCode: 2 });
  }
  const written = parseHostValue(path, mcpFileSchema, json, 'the file').mcpServers;
  return { path, servers: expandServerVariables(written, { file: path, variables }) };
}
