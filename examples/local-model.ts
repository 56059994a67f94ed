// A coding agent on a model you serve yourself: any OpenAI-compatible server (Ollama, vLLM, llama.cpp,
// LM Studio). It works in the current folder with the built-in tools: it reads and edits files, runs
// `npm test`, and is refused any other command.
// Run it in the project to work on (a prompt as the argument, or it fixes the failing test):
//   OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_MODEL=Qwen/Qwen3-8B npx tsx examples/local-model.ts
// Ollama serves on :11434/v1, vLLM on :8000/v1, llama.cpp on :8080/v1, LM Studio on :1234/v1.
import { codingTools, createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';

const { OPENAI_BASE_URL = 'http://localhost:11434/v1', OPENAI_MODEL = 'qwen3:8b' } = process.env;
const system = createAgentSystem({
  // contextWindow: the window the server runs the model with; local servers take any key.
  model: openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: 'local', contextWindow: 32_768 }),
  tools: codingTools(),
  permissionMode: 'accept-edits', // reads and edits run; commands ask...
  permissions: { allow: ['bash(npm test)'] }, // ...except this one
  approve: async () => ({ outcome: 'deny', reason: 'only `npm test` may run here' }),
});
const agent = await system.createAgent();
agent.onLog((event) => {
  if (event.type === 'tool.call') console.log(`> ${event.data.name} ${JSON.stringify(event.data.input)}`);
});
const result = await agent.run(process.argv[2] ?? 'Fix the failing test.');
console.log(result.text);
await system.dispose();
