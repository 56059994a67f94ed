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
const events = agent.events(); // live events from now on: take them before the run starts
const answer = agent.run('What should I wear in Paris today?');
for await (const event of events) {
  if (event.type === 'model.delta') process.stdout.write(event.text);
  if (event.type === 'log' && event.event.type === 'turn.end') break;
}
console.log(`\n(${(await answer).reason})`);
await system.dispose();
