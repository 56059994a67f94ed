import type { McpServerConfig, McpServers } from '../../mcp/server-config.ts';
import type { McpServerStatus } from '../../mcp/tool-source.ts';
import { scripted } from '../../providers/scripted.ts';
import { createAgentSystem } from '../../runtime/create-agent-system.ts';
import { memoryStore } from '../../session/memory-store.ts';
import { workspaceOf } from '../agent-flags.ts';
import { readMcpConfig } from '../mcp-config.ts';
import { type CliIo, line, type TextOut } from '../terminal/io.ts';

export type McpListFlags = { cwd?: string; config?: string; json?: boolean; workspaceMcp?: boolean };

type Listed = { server: string; status?: McpServerStatus; error?: string };
type Held = { server: string; transport: 'stdio' | 'http'; started: false };

/**
 * `agentchart mcp list`: the MCP servers of `.mcp.json` (or `--config FILE`), each started on its own as an
 * agent would start it, with its transport, state, process and tools (and the tools it does not offer and
 * why); then closed again. Exit 0 when every server started, 1 otherwise. The workspace's own `.mcp.json`
 * came with the checkout and could name any command, so its servers are started only with
 * `--workspace-mcp` (as `run` starts the workspace's servers); without it they are listed, not started.
 * A file named with `--config` is the user's choice and is started.
 */
export async function mcpListCommand(flags: McpListFlags, io: CliIo): Promise<number> {
  const cwd = await workspaceOf(io, flags.cwd);
  const { path, servers } = await readMcpConfig(cwd, { file: flags.config, variables: io.env });
  const names = Object.keys(servers);
  if (names.length === 0) {
    if (flags.json) line(io.stdout, JSON.stringify({ config: path, servers: [] }));
    else line(io.stdout, `No MCP servers configured (${path}).`);
    return 0;
  }
  if (flags.config === undefined && flags.workspaceMcp !== true) return listHeld(io, path, servers, flags);
  const listed = await Promise.all(names.map((server) => probe(server, servers[server]!, cwd)));
  if (flags.json) line(io.stdout, JSON.stringify({ config: path, servers: listed }));
  else {
    line(io.stdout, `MCP servers in ${path}:`);
    for (const entry of listed) print(io.stdout, entry);
  }
  return listed.every((entry) => entry.status?.state === 'connected') ? 0 : 1;
}

/** The workspace's servers, named and not started; exit 1, since none of them was seen to start. */
function listHeld(io: CliIo, path: string, servers: McpServers, flags: McpListFlags): number {
  const held: Held[] = Object.entries(servers).map(([server, config]) => ({
    server,
    transport: 'command' in config ? 'stdio' : 'http',
    started: false,
  }));
  const names = held.map((entry) => entry.server).join(', ');
  line(
    io.stderr,
    `agentchart: not starting the MCP servers of the workspace's .mcp.json (${names}); pass --workspace-mcp to trust them`,
  );
  if (flags.json) line(io.stdout, JSON.stringify({ config: path, servers: held }));
  else {
    line(io.stdout, `MCP servers in ${path}:`);
    for (const entry of held) line(io.stdout, `  ${entry.server} (${entry.transport}): not started`);
  }
  return 1;
}

/** Starts one server the way an agent does (and closes it), so its state and tools are the real ones. */
async function probe(server: string, config: McpServerConfig, cwd: string): Promise<Listed> {
  const system = createAgentSystem({
    model: scripted([]),
    store: memoryStore(),
    cwd,
    projectInstructions: false,
    mcpServers: { [server]: config },
    // Only listed, never called: nobody needs to answer for its tools.
    approve: 'deny',
  });
  try {
    const agent = await system.createAgent({ id: 'mcp-list' });
    const [status] = agent.mcpServers();
    return { server, ...(status ? { status } : {}) };
  } catch (error) {
    return { server, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await system.dispose();
  }
}

function print(out: TextOut, { server, status, error }: Listed): void {
  if (status === undefined) {
    line(out, `  ${server}: failed to start`);
    for (const text of (error ?? '').split('\n')) line(out, `    ${text}`);
    return;
  }
  const pid = status.pid !== undefined ? `, pid ${status.pid}` : '';
  line(out, `  ${server} (${status.transport}${pid}): ${status.state}, ${status.tools.length} tool(s)`);
  for (const tool of status.tools) {
    const summary = tool.description.split('\n')[0]!.slice(0, 80);
    line(out, `    ${tool.name} [${tool.access}]${summary ? ` ${summary}` : ''}`);
  }
  for (const skipped of status.skipped) line(out, `    not offered: ${skipped.tool} (${skipped.reason})`);
}
