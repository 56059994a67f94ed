// One connection to one MCP server through the official SDK: stdio (a child process) or Streamable HTTP,
// falling back to HTTP+SSE for servers that predate it. The only file that imports the SDK's client.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../errors/describe-value.ts';
import { McpServerError } from '../errors/mcp-server-error.ts';
import type { McpCallResult } from './call-result.ts';
import type { ListedTool } from './mcp-tool.ts';
import type { McpServerConfig, McpStdioServer, McpTransportKind } from './server-config.ts';

/**
 * A live connection to one server.
 * Contract: `callTool` rejects when the call fails (the server answered with a JSON-RPC error, the
 * connection dropped, the signal fired); `onLost` is called at most once, when the connection ends
 * without `close()`; `close()` resolves once the server's process (stdio) has exited.
 */
export interface McpConnection {
  readonly transport: McpTransportKind;
  /** The server's process id (stdio only). */
  readonly pid: number | undefined;
  /**
   * Every page of the server's tool list; `signal` stops the wait (a dispose during creation). Rejects with
   * an `McpServerError` naming the server (with a stdio server's stderr tail) when the listing fails.
   */
  listTools(signal?: AbortSignal): Promise<ListedTool[]>;
  callTool(
    tool: string,
    input: unknown,
    options: { signal: AbortSignal; onProgress: (progress: unknown) => void },
  ): Promise<McpCallResult>;
  onLost: ((reason: string) => void) | undefined;
  onToolsChanged: (() => void) | undefined;
  close(): Promise<void>;
}

/**
 * Opens a connection to a server (`cwd` is where a stdio server starts when its config names none).
 * Contract: resolves once the handshake is done, or rejects with an `McpServerError` and leaves nothing
 * running.
 */
export type McpConnect = (
  server: string,
  config: McpServerConfig,
  /** `signal` stops the start (a dispose during creation): the server is closed and the promise rejects. */
  options: { cwd: string; signal?: AbortSignal },
) => Promise<McpConnection>;

// The runtime's per-tool timeout (on its clock) aborts the signal; the SDK's own timer must not end
// the call first.
const noSdkTimeout = 2 ** 31 - 1;
/** How long the handshake may take before the server counts as not starting. */
const handshakeMs = 30_000;
const stderrKept = 4_000;

export const connectWithSdk: McpConnect = async (server, config, { cwd, signal }) => {
  if ('command' in config) return connectStdio(server, config, cwd, signal);
  const url = new URL(config.url);
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const options = requestInit ? { requestInit } : {};
  if (config.type === 'sse') return open(server, 'sse', new SSEClientTransport(url, options), signal);
  try {
    return await open(server, 'http', new StreamableHTTPClientTransport(url, options), signal);
  } catch (streamable) {
    if (signal?.aborted) throw streamable;
    // An older server speaks HTTP+SSE: the SDK's advice is to try it when Streamable HTTP is refused.
    try {
      return await open(server, 'sse', new SSEClientTransport(url, options), signal);
    } catch {
      throw streamable;
    }
  }
};

async function connectStdio(
  server: string,
  config: McpStdioServer,
  cwd: string,
  signal: AbortSignal | undefined,
) {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    env: { ...getDefaultEnvironment(), ...config.env },
    cwd: config.cwd ?? cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  const stream = transport.stderr;
  stream?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-stderrKept);
  });
  // What a server that failed to start wrote may still be on its way when the failure is known.
  const drained = new Promise<void>((done) => {
    stream?.once('end', done);
    stream?.once('close', done);
  });
  const said = async () => {
    await Promise.race([drained, sleep(500)]);
    return stderr.trim();
  };
  return open(server, 'stdio', transport, signal, said);
}

async function open(
  server: string,
  kind: McpTransportKind,
  transport: Transport,
  signal: AbortSignal | undefined,
  stderr: () => Promise<string> = async () => '',
): Promise<McpConnection> {
  let connection: SdkConnection | undefined;
  const client = new Client(
    { name: 'agentchart', version: '0.1.0' },
    {
      capabilities: {},
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => connection?.onToolsChanged?.() },
      },
    },
  );
  const pid = () => (transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined);
  const connecting = client.connect(transport, { timeout: handshakeMs, ...(signal ? { signal } : {}) });
  // Read now: connect spawns a stdio server synchronously, and when it fails (a timeout, an abort) the SDK
  // has already dropped the process, still closing it, so the pid would be gone by the catch below.
  const started = pid();
  try {
    await connecting;
  } catch (error) {
    await client.close().catch(() => undefined);
    await waitForExit(started);
    const said = await stderr();
    throw new McpServerError(
      server,
      withStderr(`MCP server "${server}" did not start: ${messageOf(error)}`, said),
      { cause: error },
    );
  }
  connection = new SdkConnection(client, { server, transport: kind, pid: pid(), stderr });
  return connection;
}

/** A failure's message with what the server said on stderr, when it said anything. */
function withStderr(message: string, said: string): string {
  return said ? `${message}\nIts stderr:\n${said}` : message;
}

class SdkConnection implements McpConnection {
  onLost: ((reason: string) => void) | undefined;
  onToolsChanged: (() => void) | undefined;
  readonly transport: McpTransportKind;
  readonly pid: number | undefined;
  private ended = false;

  constructor(
    private readonly client: Client,
    private readonly about: {
      server: string;
      transport: McpTransportKind;
      pid: number | undefined;
      /** The tail of what a stdio server wrote on stderr (empty over HTTP). */
      stderr: () => Promise<string>;
    },
  ) {
    this.transport = about.transport;
    this.pid = about.pid;
    client.onclose = () => this.lose('the connection closed');
  }

  /** Rejects with an `McpServerError` naming the server, with its stderr, unless `signal` stopped it. */
  async listTools(signal?: AbortSignal): Promise<ListedTool[]> {
    try {
      return await this.listPages(signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      const { server } = this.about;
      const said = await this.about.stderr();
      throw new McpServerError(
        server,
        withStderr(`MCP server "${server}" could not list its tools: ${messageOf(error)}`, said),
        { cause: error },
      );
    }
  }

  private async listPages(signal: AbortSignal | undefined): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: handshakeMs,
        ...(signal ? { signal } : {}),
      });
      tools.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  async callTool(
    tool: string,
    input: unknown,
    options: { signal: AbortSignal; onProgress: (progress: unknown) => void },
  ): Promise<McpCallResult> {
    try {
      return await this.client.callTool(
        { name: tool, arguments: input as Record<string, unknown> },
        undefined,
        {
          signal: options.signal,
          timeout: noSdkTimeout,
          onprogress: (progress) => options.onProgress(progress),
        },
      );
    } catch (error) {
      // Over HTTP a server that went away shows up as a failed request, not as a closed transport.
      if (!(error instanceof McpError) && !options.signal.aborted) this.lose(messageOf(error));
      throw error;
    }
  }

  async close(): Promise<void> {
    this.ended = true;
    await this.client.close().catch(() => undefined);
    await waitForExit(this.pid);
  }

  private lose(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.onLost?.(reason);
    // Whatever is left of the connection (a process still exiting) is let go.
    void this.client.close().catch(() => undefined);
  }
}

/**
 * Waits (real time: it is the process's own) until `pid` is gone; after 5 s it is killed. The SDK's
 * close ends stdin, then signals, but does not wait for the last signal to take effect.
 */
export async function waitForExit(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  for (let waited = 0; alive(pid); waited += 20) {
    if (waited === 5_000) kill(pid);
    if (waited > 7_000) return;
    await sleep(20);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: the pid was reused by a process that is not ours, so ours is gone too.
    return false;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone between the check and the signal.
  }
}
