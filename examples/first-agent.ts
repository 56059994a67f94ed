// A first agent: a tool of your own with a zod schema, and the answer streamed as the model writes it.
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 npx tsx examples/first-agent.ts (recorded in .agentchart/)
import { createAgentSystem, defineTool, fileStore } from 'agentchart';
import { openai } from 'agentchart/openai';
import { z } from 'zod';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const weather = defineTool({
  name: 'weather',
  description: 'Today’s weather in a city.',
  access: 'read',
  input: z.object({ city: z.string() }),
  run: async ({ city }) => `Sunny and 21 °C in ${city}.`,
});
const system = createAgentSystem({
  model: openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY }),
  tools: [weather],
  store: fileStore('.agentchart/sessions'),
});
const agent = await system.createAgent();
const stream = agent.stream('What should I wear in Paris today?'); // one turn, yielded as it happens
for await (const event of stream) {
  if (event.type === 'text.delta') process.stdout.write(event.text);
}
console.log(`\n(${(await stream.result).reason})`);
await system.dispose();
