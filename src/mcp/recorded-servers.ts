// MCP servers answered from a recorded session, so that a replay re-runs it byte for byte without starting
// a server: the tools come from `session.start` (and its `mcp.tools` changes, at the same steps), each call
// gets the result the log recorded for its call id, and recorded `mcp.status` lines are written again at
// the same places.
import type { SessionLog } from '../session/session-log.ts';
import { isEvent, type LogEvent } from '../session/types.ts';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/define-tool.ts';
import { type McpToolRecord, mcpTool } from './mcp-tool.ts';
import { loadSchemaValidators } from './schema-validators.ts';
import type { McpTransportKind } from './server-config.ts';
import type { McpServerStatus, McpToolSource, McpToolsChange } from './tool-source.ts';

/** What `session.start` records of each server (`config.mcp`). */
export type RecordedServers = Record<string, { transport: McpTransportKind; tools: McpToolRecord[] }>;

/** The servers a session recorded in its `session.start` (empty when it used none). */
export function recordedServers(events: readonly LogEvent[]): RecordedServers {
  const start = events[0];
  if (start === undefined || !isEvent(start, 'session.start')) return {};
  const mcp = (start.data.config as { mcp?: unknown }).mcp;
  return typeof mcp === 'object' && mcp !== null ? (mcp as RecordedServers) : {};
}

export class RecordedMcpServers implements McpToolSource {
  private readonly offered = new Map<string, AnyTool[]>();
  private readonly records = new Map<string, McpToolRecord[]>();

  constructor(private readonly recorded: readonly LogEvent[]) {}

  async connect(log: SessionLog): Promise<void> {
    await loadSchemaValidators();
    for (const [server, { tools }] of Object.entries(recordedServers(this.recorded))) this.use(server, tools);
    // A status the recording logged goes in again right after the event it followed.
    const echo = (event: LogEvent) => {
      const next = this.recorded[event.seq + 1];
      if (next !== undefined && isEvent(next, 'mcp.status') && log.events.length === next.seq)
        log.append({ type: 'mcp.status', data: next.data });
    };
    log.subscribe(echo);
  }

  tools(): AnyTool[] {
    return [...this.offered.values()].flat();
  }

  servers(): McpServerStatus[] {
    return Object.entries(recordedServers(this.recorded)).map(([server, { transport }]) => ({
      server,
      transport,
      state: 'connected',
      tools: this.records.get(server) ?? [],
      skipped: [],
      listChanged: false,
    }));
  }

  takeChanges(position: number): McpToolsChange[] {
    const changes: McpToolsChange[] = [];
    for (let seq = position; ; seq++) {
      const event = this.recorded[seq];
      if (event === undefined || !isEvent(event, 'mcp.tools')) return changes;
      this.use(event.data.server, event.data.tools);
      changes.push({ server: event.data.server, tools: event.data.tools });
    }
  }

  async close(): Promise<void> {}

  private use(server: string, tools: McpToolRecord[]): void {
    this.records.set(server, tools);
    this.offered.set(
      server,
      tools.map((record) => mcpTool(server, record, this.answer)),
    );
  }

  /** The recorded result of the call; a call the recording ended otherwise (cancelled) waits for its signal. */
  private readonly answer = async (
    _server: string,
    _tool: string,
    _input: unknown,
    context: Pick<ToolContext, 'signal' | 'callId'>,
  ): Promise<ToolOutput> => {
    const result = this.recorded.find(
      (event) => isEvent(event, 'tool.result') && event.data.callId === context.callId,
    );
    if (result !== undefined && isEvent(result, 'tool.result')) {
      const { outcome, content } = result.data;
      if (outcome === 'ok') return content;
      if (outcome === 'error') return { content, isError: true };
    }
    return new Promise((resolve) =>
      context.signal.addEventListener('abort', () => resolve({ content: '', isError: true }), { once: true }),
    );
  };
}
