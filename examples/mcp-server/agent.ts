// An agent with the tools of an MCP server: it starts server.ts (stdio) when the agent is created, offers
// its tools to the model as mcp__notes__add_note and mcp__notes__list_notes, and stops it on dispose.
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/mcp-server/agent.ts
import { createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const model = openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY });
const system = createAgentSystem({
  model,
  // The shape of Claude Code's .mcp.json: a command to start, or { url } for a server over HTTP.
  mcpServers: {
    notes: { command: process.execPath, args: ['--import', 'tsx', 'server.ts'], cwd: import.meta.dirname },
  },
  permissions: { allow: ['mcp__notes__*'] }, // the server's writing tool runs without asking
});
const agent = await system.createAgent(); // the server is running when this resolves
for (const { server, state, tools } of agent.mcpServers())
  console.log(`${server}: ${state}, ${tools.map((tool) => tool.name).join(', ')}`);
const result = await agent.run(process.argv[2] ?? 'Note that the demo is on Friday, then list my notes.');
console.log(result.text);
await system.dispose();
