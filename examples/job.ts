// A job of ten tasks: one agent per task, four at a time, with a line of progress as each starts and ends.
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/job.ts
import { createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const model = openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY });
const system = createAgentSystem({ model });
const tasks = Array.from({ length: 10 }, (_, n) => ({ prompt: `One fact about the number ${n}.` }));
const job = system.runJob({
  tasks,
  concurrency: 4,
  onProgress: (p) => console.log(`${p.type} ${p.index} (${p.finished}/${p.total} done)`),
});
for (const result of await job.result) console.log(`${result.index} ${result.reason}: ${result.text}`);
await system.dispose();
