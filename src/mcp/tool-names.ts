// How an MCP server's tool is named for the model: `mcp__<server>__<tool>`, inside the 64 characters of
// letters, digits, "_" and "-" that every provider accepts for a tool name.
import { fnv1a } from '../core/hash.ts';

export const mcpToolPrefix = 'mcp__';
const maxToolName = 64;

/**
 * `mcp__<server>__<tool>`. Characters a tool name cannot hold become "_"; a name over 64 characters keeps
 * its head and ends with a hash of the server's own name, so two long names stay apart.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${mcpToolPrefix}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (full.length <= maxToolName) return full;
  const hash = fnv1a(tool).toString(16).padStart(8, '0');
  return `${full.slice(0, maxToolName - hash.length - 1)}_${hash}`;
}

/** The server a tool name belongs to (`mcp__github__create_issue` → `github`), if it is an MCP tool's. */
export function serverOfTool(name: string): string | undefined {
  if (!name.startsWith(mcpToolPrefix)) return undefined;
  const end = name.indexOf('__', mcpToolPrefix.length);
  return end === -1 ? undefined : name.slice(mcpToolPrefix.length, end);
}
