// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are config text; `${VAR}` is what they are about.
// `${VAR}` and `${VAR:-default}` in MCP server configs read from files, as Claude Code documents them: the
// fields that expand, defaults, and the error for a variable that is unset and has no default.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.ts';
import { mcpServersFileSchema, mcpServersSchema } from '../../src/mcp/server-config.ts';
import { expandServerVariables } from '../../src/mcp/server-variables.ts';

const file = '/work/project/.mcp.json';

/** The example of Claude Code's MCP documentation ("Environment variable expansion in .mcp.json"). */
const documented = {
  mcpServers: {
    'api-server': {
      type: 'http',
      url: '${API_BASE_URL:-https://api.example.com}/mcp',
      headers: { Authorization: 'Bearer ${API_KEY}' },
    },
  },
};

function expand(servers: unknown, variables: Record<string, string | undefined>) {
  return expandServerVariables(mcpServersFileSchema.parse(servers), { file, variables });
}

function failure(servers: unknown, variables: Record<string, string | undefined>): string {
  try {
    expand(servers, variables);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error('expanded without an error');
}

describe('MCP server variables', () => {
  it("expands Claude Code's documented example: a default for the URL, the key in a header", () => {
    expect(expand(documented.mcpServers, { API_KEY: 'k-123' })).toEqual({
      'api-server': {
        type: 'http',
        url: 'https://api.example.com/mcp',
        headers: { Authorization: 'Bearer k-123' },
      },
    });
    expect(
      expand(documented.mcpServers, { API_KEY: 'k-123', API_BASE_URL: 'http://127.0.0.1:9000' })[
        'api-server'
      ],
    ).toMatchObject({ url: 'http://127.0.0.1:9000/mcp' });
  });

  it('expands command, args and env values; keys, bare $VAR and cwd stay as written', () => {
    const servers = {
      tool: {
        command: '${TOOLS}/bin/server',
        args: ['--root', '${ROOT:-/srv}', '$ROOT', 'plain'],
        env: { TOKEN: '${TOKEN}', '${KEY}': 'x', BOTH: '${A}-${B:-b}' },
        cwd: '${ROOT}',
      },
    };
    expect(expand(servers, { TOOLS: '/opt/t', TOKEN: 't0k', A: 'a', ROOT: '/r' })).toEqual({
      tool: {
        command: '/opt/t/bin/server',
        args: ['--root', '/r', '$ROOT', 'plain'],
        env: { TOKEN: 't0k', '${KEY}': 'x', BOTH: 'a-b' },
        cwd: '${ROOT}',
      },
    });
  });

  it('takes a set variable even when empty, and an empty default', () => {
    const servers = { s: { command: 'run', args: ['${EMPTY:-fallback}', '${UNSET:-}'] } };
    expect(expand(servers, { EMPTY: '' }).s).toEqual({ command: 'run', args: ['', ''] });
  });

  it('refuses a variable that is unset and has no default, naming the file, server, field and variable', () => {
    expect(failure(documented.mcpServers, {})).toBe(
      `${file}: MCP server "api-server" uses \${API_KEY} in headers.Authorization, but API_KEY is not set ` +
        'and has no default (set it, or write ${API_KEY:-default})',
    );
    expect(failure({ s: { command: 'run', args: ['a', '${ARG}'] } }, {})).toBe(
      `${file}: MCP server "s" uses \${ARG} in args[1], but ARG is not set and has no default ` +
        '(set it, or write ${ARG:-default})',
    );
  });

  it('refuses a reference that names no variable', () => {
    expect(failure({ s: { command: '${1ST:-x}' } }, { '1ST': 'y' })).toBe(
      `${file}: MCP server "s" has \${1ST} in command, which names no variable ` +
        '(write ${NAME} or ${NAME:-default}, NAME being letters, digits and "_")',
    );
  });

  it('checks a URL once expanded; unexpanded references are for files only', () => {
    const servers = { api: { url: '${BASE}/mcp' } };
    expect(failure(servers, { BASE: 'ftp://host' })).toBe(
      `${file}: mcpServers.api.url must be an http:// or https:// URL, got "ftp://host/mcp"`,
    );
    expect(mcpServersFileSchema.safeParse(servers).success).toBe(true);
    expect(mcpServersSchema.safeParse(servers).success).toBe(false);
  });
});
