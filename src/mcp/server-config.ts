// The `mcpServers` option (and settings/`.mcp.json` field): the JSON shape Claude Code uses, parsed once
// where it enters. A server is a command to run (stdio) or a URL to reach (Streamable HTTP, falling back
// to the older HTTP+SSE transport; `type: "sse"` goes to SSE directly).
import { z } from 'zod/v4';
import { must, nonEmptyString, plainIssue } from '../core/host-schema.ts';

/** A server the runtime starts as a child process and speaks to over stdin/stdout. */
export type McpStdioServer = {
  type?: 'stdio';
  command: string;
  args?: string[];
  /** Added to the few variables the SDK passes on (HOME, PATH, USER, …); nothing else is inherited. */
  env?: Record<string, string>;
  /** Where the process starts (default: the agent's workspace). */
  cwd?: string;
};

/** A server reached over HTTP: Streamable HTTP first, then HTTP+SSE if the server refuses it. */
export type McpHttpServer = {
  type?: 'http' | 'sse';
  url: string;
  headers?: Record<string, string>;
};

export type McpServerConfig = McpStdioServer | McpHttpServer;

/** Servers by name; each server's tools reach the model as `mcp__<name>__<tool>`. */
export type McpServers = Record<string, McpServerConfig>;

/** The transport a server was reached over, as `session.start` and `mcp list` report it. */
export type McpTransportKind = 'stdio' | 'http' | 'sse';

const nameRule = must(
  '1-32 letters, digits, "_" or "-", without "__" (it separates the parts of a tool name)',
);
export const mcpServerName = z
  .string(nameRule)
  .regex(/^[A-Za-z0-9_-]{1,32}$/, nameRule)
  .refine((name) => !name.includes('__'), nameRule);

const stringMap = z.record(z.string(), z.string(must('a string')), must('an object of strings'));

const stdioServer = z.strictObject(
  {
    type: z.literal('stdio', must('"stdio"')).optional(),
    command: nonEmptyString,
    args: z.array(z.string(must('a string')), must('an array of strings')).optional(),
    env: stringMap.optional(),
    cwd: nonEmptyString.optional(),
  },
  must('an object'),
);

const urlRule = must('an http:// or https:// URL');
const isHttpUrl = (text: string) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);

/** A file's URL may hold `${VAR}` references: it is checked once they are expanded (server-variables.ts). */
const httpServer = (references: boolean) =>
  z.strictObject(
    {
      type: z.enum(['http', 'sse'], must('"http" or "sse"')).optional(),
      url: z
        .string(urlRule)
        .refine((text) => (references && text.includes('${')) || isHttpUrl(text), urlRule),
      headers: stringMap.optional(),
    },
    must('an object'),
  );

const serverRule = must('{ command, args?, env?, cwd? } or { url, headers? }');
const serverConfig = (references: boolean) => {
  const http = httpServer(references);
  return z.custom<McpServerConfig>().superRefine((value, context) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      context.addIssue({ code: 'custom', message: serverRule.error });
      return;
    }
    const shape = 'url' in value && !('command' in value) ? http : stdioServer;
    const parsed = shape.safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ ...issue });
  });
};

const serversSchema = (references: boolean) =>
  z
    .record(z.string(), serverConfig(references), must('an object of MCP servers by name'))
    .superRefine((servers, context) => {
      for (const name of Object.keys(servers)) {
        const checked = mcpServerName.safeParse(name);
        if (!checked.success)
          context.addIssue(
            plainIssue('is not a usable server name: use 1-32 letters, digits, "_" or "-", without "__"', [
              name,
            ]),
          );
      }
    });

/** `{ [name]: server }`, names as tool names allow them: the servers as they are started. */
export const mcpServersSchema = serversSchema(false);

/**
 * The servers as a file writes them (`.mcp.json`, settings): `${VAR}` references are still in them, so a
 * `url` such as `${API_BASE_URL:-https://api.example.com}/mcp` passes here and is checked after expansion.
 */
export const mcpServersFileSchema = serversSchema(true);

export function transportOf(config: McpServerConfig): McpTransportKind {
  if ('command' in config) return 'stdio';
  return config.type === 'sse' ? 'sse' : 'http';
}
