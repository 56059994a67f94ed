import type { McpConnect } from './sdk-connection.ts';

/**
 * `connectWithSdk`, with the MCP SDK's client loaded at the first connection instead of when agentchart
 * is imported: a program that starts no MCP server never loads it.
 */
export const connectWithSdkLazily: McpConnect = async (server, config, options) => {
  const { connectWithSdk } = await import('./sdk-connection.ts');
  return connectWithSdk(server, config, options);
};
