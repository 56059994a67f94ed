// A typed result: the answer must match a zod schema, and `result.output` has its type. An answer that
// does not match goes back to the model with the reason, and is asked for again (twice, by default).
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/typed-result.ts
import { createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';
import { z } from 'zod';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const Triage = z.object({
  severity: z.enum(['low', 'medium', 'high']),
  component: z.string().describe('the part of the product the report is about'),
  summary: z.string().max(80),
});
const system = createAgentSystem({
  model: openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY }),
});
const agent = await system.createAgent();
const report = 'Since the last update the app logs me out every time I rotate my phone. I lose my draft.';
const result = await agent.run(`Triage this bug report:\n${report}`, { output: Triage });
if (result.reason === 'completed') {
  const { severity, component, summary } = result.output; // typed: z.infer<typeof Triage>
  console.log(`${severity.toUpperCase()} · ${component} · ${summary}`);
} else {
  console.log(`no triage: ${result.reason} (${result.error?.message})`);
}
await system.dispose();
