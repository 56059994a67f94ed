// Claude Code's `allowedMcpServers` and `deniedMcpServers` (managed-mcp, "Control servers with allowlists
// and denylists"): entries `{ serverName }`, `{ serverCommand: [command, ...args] }` (exact) or
// `{ serverUrl }` (`*` wildcards). Ignoring them would start a server the person blocked, so they are
// honoured: a denied server never starts (the denylist wins), and once an allowlist is set (an empty one
// is a lockdown) a server it does not name does not start either.
import { z } from 'zod/v4';
import type { McpServerConfig } from '../mcp/server-config.ts';
import type { LoadedSettings } from './settings-types.ts';

const entrySchema = z.union([
  z.strictObject({ serverName: z.string().min(1) }),
  z.strictObject({ serverCommand: z.array(z.string()).min(1) }),
  z.strictObject({ serverUrl: z.string().min(1) }),
]);

/** `allowedMcpServers` / `deniedMcpServers` of one file. */
export const serverListSchema = z.array(entrySchema);

export type ServerEntry = z.infer<typeof entrySchema>;

/** The lists in force: every file's deny entries; the allow entries of trusted files (else of the others). */
export type ServerLists = { allow?: ServerEntry[]; deny: ServerEntry[] };

function matches(entry: ServerEntry, name: string, server: McpServerConfig): boolean {
  if ('serverName' in entry) return entry.serverName === name;
  if ('serverCommand' in entry) {
    if (!('command' in server)) return false;
    const command = [server.command, ...(server.args ?? [])];
    return (
      command.length === entry.serverCommand.length &&
      command.every((word, i) => word === entry.serverCommand[i])
    );
  }
  if (!('url' in server)) return false;
  const pattern = entry.serverUrl
    .split('*')
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(server.url);
}

/** Why a server may not start under the lists, or `undefined` when it may. */
export function serverBlocked(lists: ServerLists, name: string, server: McpServerConfig): string | undefined {
  if (lists.deny.some((entry) => matches(entry, name, server))) return 'blocked by deniedMcpServers';
  if (lists.allow !== undefined && !lists.allow.some((entry) => matches(entry, name, server)))
    return 'not in allowedMcpServers';
  return undefined;
}

/** Takes the blocked servers out of loaded settings; their sources say why. */
export function applyServerLists(loaded: LoadedSettings, lists: ServerLists): void {
  for (const [name, server] of Object.entries(loaded.mcpServers)) {
    const blocked = serverBlocked(lists, name, server);
    if (blocked === undefined) continue;
    delete loaded.mcpServers[name];
    for (const source of loaded.sources)
      if (source.key === `mcpServers.${name}` && source.ignored === undefined) source.ignored = blocked;
  }
}
