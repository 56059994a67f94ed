// `${VAR}` and `${VAR:-default}` in the MCP servers of a file (`.mcp.json`, the settings' `mcpServers`), as
// Claude Code documents them: expanded in `command`, `args`, `env` values, `url` and `headers` values, from
// the environment the loader was given (never read here). A variable that is not set and has no default is
// an error naming the file, the server, the field and the variable, as Claude Code's documentation says its
// config then fails to parse: a literal `${TOKEN}` must not reach a server as a password.
import { z } from 'zod/v4';
import { parseHostValue } from '../core/host-schema.ts';
import { ConfigError } from '../errors/config-error.ts';
import { type McpServerConfig, type McpServers, mcpServersSchema } from './server-config.ts';

/** The variables a config may name (an environment: `process.env`, the CLI's `io.env`). */
export type ConfigVariables = Readonly<Record<string, string | undefined>>;

/** `${…}` up to the first `}`; what is inside is a name, then optionally `:-` and a default. */
const reference = /\$\{([^}]*)\}/g;
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const expandedFile = z.object({ mcpServers: mcpServersSchema });

/**
 * The servers with their references expanded, then checked as any servers are (a `url` must be an HTTP
 * URL once expanded). A set variable wins, even when empty; an unset one takes its default.
 *
 * @throws ConfigError naming `file`, the server, the field and the variable when a variable is unset and
 * has no default, when a reference holds no variable name, or when an expanded server is not valid.
 */
export function expandServerVariables(
  servers: McpServers,
  source: { file: string; variables: ConfigVariables },
): McpServers {
  const expanded = Object.fromEntries(
    Object.entries(servers).map(([server, config]) => {
      const expand = (text: string, field: string) =>
        expandText(text, (name) => unset({ ...source, server, field, name }), source.variables);
      return [server, expandServer(config, expand)];
    }),
  );
  // Checked under the file's own key, so a message names `mcpServers.<server>.url` as the file has it.
  return parseHostValue(source.file, expandedFile, { mcpServers: expanded }).mcpServers;
}

type Expand = (text: string, field: string) => string;

function expandServer(config: McpServerConfig, expand: Expand): McpServerConfig {
  if ('command' in config) {
    const { command, args, env, ...rest } = config;
    return {
      ...rest,
      command: expand(command, 'command'),
      ...(args ? { args: args.map((arg, index) => expand(arg, `args[${index}]`)) } : {}),
      ...(env ? { env: expandValues(env, 'env', expand) } : {}),
    };
  }
  const { url, headers, ...rest } = config;
  return {
    ...rest,
    url: expand(url, 'url'),
    ...(headers ? { headers: expandValues(headers, 'headers', expand) } : {}),
  };
}

/** Values are expanded; keys (variable and header names) are not, as in Claude Code. */
function expandValues(values: Record<string, string>, field: string, expand: Expand): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, expand(value, `${field}.${key}`)]),
  );
}

function expandText(text: string, fail: (name: string) => never, variables: ConfigVariables): string {
  return text.replace(reference, (_whole, inside: string) => {
    const split = inside.indexOf(':-');
    const name = split === -1 ? inside : inside.slice(0, split);
    if (!variableName.test(name)) fail(name);
    const value = variables[name];
    if (value !== undefined) return value;
    if (split !== -1) return inside.slice(split + 2);
    return fail(name);
  });
}

function unset(at: { file: string; server: string; field: string; name: string }): never {
  const { file, server, field, name } = at;
  if (!variableName.test(name)) {
    throw new ConfigError(
      `${file}: MCP server "${server}" has \${${name}} in ${field}, which names no variable ` +
        `(write \${NAME} or \${NAME:-default}, NAME being letters, digits and "_")`,
    );
  }
  throw new ConfigError(
    `${file}: MCP server "${server}" uses \${${name}} in ${field}, but ${name} is not set and has no ` +
      `default (set it, or write \${${name}:-default})`,
  );
}
