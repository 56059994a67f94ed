// A hook in Claude Code's format. .claude/settings.json lets the agent run commands, and names a
// PreToolUse hook (.claude/hooks/no-rm-rf.mjs) that sees each one first and blocks `rm -rf`: the model
// reads why and tries another way. The same two files work in Claude Code.
// Run, in this folder: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx agent.ts
import { codingTools, createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const model = openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY });
const system = createAgentSystem({
  model,
  tools: codingTools(),
  settings: '.claude/settings.json', // a file the host names is trusted: its permissions and hooks apply
});
const agent = await system.createAgent();
agent.onLog((event) => {
  if (event.type === 'hook.decided' && event.data.outcome !== 'pass')
    console.log(`hook ${event.data.outcome}: ${event.data.reason}`);
});
const result = await agent.run(process.argv[2] ?? 'Delete the build folder.');
console.log(result.text);
await system.dispose();
