import { AgentchartError, hasMarker } from './agentchart-error.ts';

const marker = Symbol.for('agentchart.error.McpServerError');

/**
 * An MCP server could not be started or reached when an agent was created (its process exited, its URL
 * did not answer, the handshake or the first tool listing failed). `server` is the name from `mcpServers`;
 * the message says what happened, with the last lines the server wrote to stderr when there are any.
 */
export class McpServerError extends AgentchartError<'mcp_server'> {
  readonly [marker] = true;
  readonly server: string;

  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super('mcp_server', message, options);
    this.name = 'McpServerError';
    this.server = server;
  }

  static override isInstance(value: unknown): value is McpServerError {
    return hasMarker(value, marker);
  }
}
