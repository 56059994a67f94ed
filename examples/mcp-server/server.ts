// A small MCP server over stdio, built with the official SDK: a notebook with one tool that writes and one
// that only reads (`readOnlyHint`, so agentchart runs it beside other reads and offers it in plan mode).
// agent.ts starts it; any MCP client can start it the same way (`npx tsx server.ts`).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const notes: string[] = [];
const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerTool(
  'add_note',
  { description: 'Adds a note to the notebook.', inputSchema: { text: z.string() } },
  async ({ text }) => {
    notes.push(text);
    return { content: [{ type: 'text', text: `Noted (${notes.length} notes).` }] };
  },
);
server.registerTool(
  'list_notes',
  { description: 'Lists the notes, oldest first.', annotations: { readOnlyHint: true } },
  async () => ({
    content: [
      { type: 'text', text: notes.map((note, index) => `${index + 1}. ${note}`).join('\n') || 'No notes.' },
    ],
  }),
);
await server.connect(new StdioServerTransport());
