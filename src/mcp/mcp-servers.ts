// The live MCP servers of one agent: started together when the agent is created, called by its tools,
// watched for a crash (then reconnected with bounded backoff on the injected clock) and for tool list
// changes (applied at the next step), and closed when the agent is disposed.
import type { Clock } from '../core/clock.ts';
import { messageOf } from '../errors/describe-value.ts';
import type { SessionLog } from '../session/session-log.ts';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/define-tool.ts';
import { outputOfCallResult } from './call-result.ts';
import { type McpToolRecord, mcpTool, recordOf, type SkippedTool } from './mcp-tool.ts';
import { loadSchemaValidators } from './schema-validators.ts';
import type { McpConnect, McpConnection } from './sdk-connection.ts';
import {
  type McpServerConfig,
  type McpServers,
  type McpTransportKind,
  transportOf,
} from './server-config.ts';
import type { McpServerState, McpServerStatus, McpToolSource, McpToolsChange } from './tool-source.ts';

/** Reconnects after a crash: the delays before each attempt (doubling), then the server is `failed`. */
export const reconnectPolicy = { baseDelayMs: 1_000, maxAttempts: 5 } as const;

type Entry = {
  server: string;
  config: McpServerConfig;
  /** The transport the last connection used (an HTTP server may have answered only over SSE). */
  transport: McpTransportKind;
  state: McpServerState;
  connection: McpConnection | undefined;
  records: McpToolRecord[];
  tools: AnyTool[];
  skipped: SkippedTool[];
  /** A list fetched after `tools/list_changed` (or a reconnect) that differs, waiting for the next step. */
  pending: McpToolRecord[] | undefined;
  attempts: number;
  cancelRetry: (() => void) | undefined;
  error: string | undefined;
};

export class McpServerSet implements McpToolSource {
  private readonly entries: Entry[];
  private log: SessionLog | undefined;
  private logging = false;
  private closed = false;

  constructor(
    servers: McpServers,
    private readonly env: { connect: McpConnect; clock: Clock; cwd: string },
  ) {
    this.entries = Object.entries(servers).map(([server, config]) => ({
      server,
      config,
      transport: transportOf(config),
      state: 'disconnected',
      connection: undefined,
      records: [],
      tools: [],
      skipped: [],
      pending: undefined,
      attempts: 0,
      cancelRetry: undefined,
      error: undefined,
    }));
  }

  async connect(log: SessionLog, signal?: AbortSignal): Promise<void> {
    await loadSchemaValidators();
    const opened = await Promise.allSettled(this.entries.map((entry) => this.open(entry, signal)));
    const failure = opened.find((result) => result.status === 'rejected');
    if (failure) {
      await this.close();
      throw failure.reason;
    }
    this.log = log;
    this.logging = true;
    // Statuses are logged until the session ends: dispose writes `session.end` before closing servers.
    log.subscribe((event) => {
      if (event.type === 'session.end') this.logging = false;
    });
  }

  tools(): AnyTool[] {
    return this.entries.flatMap((entry) => entry.tools);
  }

  servers(): McpServerStatus[] {
    return this.entries.map((entry) => ({
      server: entry.server,
      transport: entry.transport,
      state: entry.state,
      ...(entry.connection?.pid !== undefined ? { pid: entry.connection.pid } : {}),
      tools: entry.records,
      skipped: entry.skipped,
      listChanged: entry.pending !== undefined,
      ...(entry.error !== undefined ? { error: entry.error } : {}),
    }));
  }

  takeChanges(): McpToolsChange[] {
    const changes: McpToolsChange[] = [];
    for (const entry of this.entries) {
      if (entry.pending === undefined) continue;
      this.offer(entry, entry.pending);
      entry.pending = undefined;
      changes.push({ server: entry.server, tools: entry.records });
    }
    return changes;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.logging = false;
    await Promise.all(
      this.entries.map(async (entry) => {
        entry.cancelRetry?.();
        const connection = entry.connection;
        entry.connection = undefined;
        entry.state = 'closed';
        await connection?.close();
      }),
    );
  }

  /** Starts one server and reads its tools; the first tool list is offered at once. */
  private async open(entry: Entry, signal: AbortSignal | undefined): Promise<void> {
    const connection = await this.env.connect(entry.server, entry.config, {
      cwd: this.env.cwd,
      ...(signal ? { signal } : {}),
    });
    try {
      this.offer(entry, await this.listRecords(entry, connection, signal));
    } catch (error) {
      await connection.close();
      throw error;
    }
    this.attach(entry, connection);
  }

  private attach(entry: Entry, connection: McpConnection): void {
    entry.connection = connection;
    entry.transport = connection.transport;
    entry.state = 'connected';
    entry.error = undefined;
    connection.onLost = (reason) => this.lost(entry, connection, reason);
    connection.onToolsChanged = () => void this.refresh(entry, connection);
  }

  private async listRecords(
    entry: Entry,
    connection: McpConnection,
    signal?: AbortSignal,
  ): Promise<McpToolRecord[]> {
    const listed = await connection.listTools(signal);
    const skipped: SkippedTool[] = [];
    const records: McpToolRecord[] = [];
    for (const tool of listed) {
      const record = recordOf(entry.server, tool);
      if ('reason' in record) skipped.push(record);
      else records.push(record);
    }
    entry.skipped = skipped;
    return records;
  }

  /** Makes `records` the server's offered tools; a tool whose schema cannot be used is skipped. */
  private offer(entry: Entry, records: McpToolRecord[]): void {
    const tools: AnyTool[] = [];
    const usable: McpToolRecord[] = [];
    const seen = new Set<string>();
    for (const record of records) {
      if (seen.has(record.name)) {
        entry.skipped.push({
          tool: record.tool,
          reason: `its name is taken by another tool (${record.name})`,
        });
        continue;
      }
      try {
        tools.push(mcpTool(entry.server, record, this.call));
        usable.push(record);
        seen.add(record.name);
      } catch (error) {
        entry.skipped.push({ tool: record.tool, reason: messageOf(error) });
      }
    }
    entry.records = usable;
    entry.tools = tools;
  }

  /** `tools/list_changed`: the new list waits for the next step (only if it differs from the offered one). */
  private async refresh(entry: Entry, connection: McpConnection): Promise<void> {
    try {
      const records = await this.listRecords(entry, connection);
      if (entry.connection !== connection) return;
      entry.pending = JSON.stringify(records) === JSON.stringify(entry.records) ? undefined : records;
    } catch (error) {
      // The list could not be read: the tools stay as they were; a lost connection is handled by onLost.
      entry.error = `the changed tool list could not be read: ${messageOf(error)}`;
    }
  }

  private readonly call = async (
    server: string,
    tool: string,
    input: unknown,
    context: Pick<ToolContext, 'signal' | 'onProgress' | 'callId'>,
  ): Promise<ToolOutput> => {
    const entry = this.entries.find((candidate) => candidate.server === server)!;
    const connection = entry.connection;
    if (connection === undefined || entry.state !== 'connected') return unavailable(entry);
    try {
      return outputOfCallResult(await connection.callTool(tool, input, context));
    } catch (error) {
      if (context.signal.aborted) return { content: 'The call was cancelled.', isError: true };
      if (entry.connection !== connection)
        return {
          content: `MCP server "${server}" stopped during the call: ${messageOf(error)}`,
          isError: true,
        };
      return { content: `MCP server "${server}" answered with an error: ${messageOf(error)}`, isError: true };
    }
  };

  /** The connection ended by itself: running calls fail, and reconnecting begins. */
  private lost(entry: Entry, connection: McpConnection, reason: string): void {
    if (this.closed || entry.connection !== connection) return;
    entry.connection = undefined;
    entry.error = reason;
    entry.attempts = 0;
    this.setState(entry, 'disconnected', reason);
    this.scheduleReconnect(entry);
  }

  private scheduleReconnect(entry: Entry): void {
    if (entry.attempts >= reconnectPolicy.maxAttempts) {
      this.setState(entry, 'failed', entry.error);
      return;
    }
    const delay = reconnectPolicy.baseDelayMs * 2 ** entry.attempts;
    entry.cancelRetry = this.env.clock.setTimer(() => void this.reconnect(entry), delay);
  }

  private async reconnect(entry: Entry): Promise<void> {
    entry.cancelRetry = undefined;
    if (this.closed) return;
    entry.attempts += 1;
    this.setState(entry, 'reconnecting');
    let connection: McpConnection | undefined;
    try {
      connection = await this.env.connect(entry.server, entry.config, { cwd: this.env.cwd });
      const records = await this.listRecords(entry, connection);
      if (this.closed) {
        await connection.close();
        return;
      }
      if (JSON.stringify(records) !== JSON.stringify(entry.records)) entry.pending = records;
      this.attach(entry, connection);
      this.setState(entry, 'connected');
    } catch (error) {
      await connection?.close();
      if (this.closed) return;
      entry.error = messageOf(error);
      // Down again until the next attempt (or for good once the attempts are used up).
      if (entry.attempts < reconnectPolicy.maxAttempts) this.setState(entry, 'disconnected', entry.error);
      this.scheduleReconnect(entry);
    }
  }

  private setState(entry: Entry, state: McpServerState, error?: string): void {
    entry.state = state;
    if (!this.logging || this.log === undefined) return;
    const detail = error !== undefined && state !== 'connected' ? { error } : {};
    this.log.append({ type: 'mcp.status', data: { server: entry.server, state, ...detail } });
  }
}

function unavailable(entry: {
  server: string;
  state: McpServerState;
  error: string | undefined;
}): ToolOutput {
  const why = entry.error ? ` (${entry.error})` : '';
  return {
    content: `MCP server "${entry.server}" is unavailable: it is ${entry.state}${why}. Its tools answer again once it is reconnected.`,
    isError: true,
  };
}
