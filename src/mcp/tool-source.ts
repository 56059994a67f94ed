// What an agent needs from the MCP servers it uses, whether they are live (McpServerSet) or answered from
// a recorded session (RecordedMcpServers, for replay). The runtime speaks only this.
import type { SessionLog } from '../session/session-log.ts';
import type { AnyTool } from '../tools/define-tool.ts';
import type { McpToolRecord, SkippedTool } from './mcp-tool.ts';
import type { McpTransportKind } from './server-config.ts';

/** Where a server stands; `mcp.status` logs every change after the agent was created. */
export type McpServerState = 'connected' | 'disconnected' | 'reconnecting' | 'failed' | 'closed';

/** One server as `mcp list` and `session.start` report it. */
export type McpServerStatus = {
  server: string;
  transport: McpTransportKind;
  state: McpServerState;
  /** The server's process (stdio), while it runs. */
  pid?: number;
  /** Its tools as offered now (the pending list change, if any, is applied at the next step). */
  tools: McpToolRecord[];
  skipped: SkippedTool[];
  /** The server's tool list changed; the new list is offered from the next step. */
  listChanged: boolean;
  /** Why it is not connected. */
  error?: string;
};

/** A server's new tool list, applied at a step boundary and logged there as `mcp.tools`. */
export type McpToolsChange = { server: string; tools: McpToolRecord[] };

/**
 * The MCP servers of one agent.
 * Contract: `connect` starts every server or none (a failure closes the ones that started, then rejects
 * with the first failure; `signal` aborting, a dispose during creation, is such a failure); `tools` are
 * the tools offered now, each answering for its server whatever the server's state (an unavailable
 * server is an error result, never a throw); `takeChanges(position)` applies
 * and returns the list changes that arrived since the last call (`position` is the seq the next log event
 * gets); `close` closes every server and resolves once their processes have exited; nothing is logged
 * after the log's `session.end`.
 */
export interface McpToolSource {
  connect(log: SessionLog, signal?: AbortSignal): Promise<void>;
  tools(): AnyTool[];
  servers(): McpServerStatus[];
  takeChanges(position: number): McpToolsChange[];
  close(): Promise<void>;
}
