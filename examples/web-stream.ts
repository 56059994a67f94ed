// An agent's answer streamed to a web response: a node:http server that runs one turn per request and
// writes the model's text as it arrives. A client that goes away cancels the turn (and the model's request).
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/web-stream.ts
//      then: curl -N 'http://localhost:3000/?q=Why+is+the+sky+blue'
import { createServer } from 'node:http';
import { createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const model = openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY });
const system = createAgentSystem({ model });
const server = createServer(async (request, response) => {
  const question = new URL(request.url ?? '/', 'http://localhost').searchParams.get('q') ?? 'Say hello.';
  const agent = await system.createAgent(); // one per request; keep one per conversation to go on talking
  response.on('close', () => response.writableFinished || agent.cancel()); // the client left
  response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  const stream = agent.stream(question);
  for await (const event of stream) if (event.type === 'text.delta') response.write(event.text);
  response.end();
  console.log(`${question} → ${(await stream.result).reason}`);
  await agent.dispose();
});
server.listen(Number(process.env.PORT ?? 3000), () => {
  const { port } = server.address() as { port: number };
  console.log(`Listening on http://localhost:${port}/?q=...`);
});
process.once('SIGINT', () => server.close(() => system.dispose()));
process.once('SIGTERM', () => server.close(() => system.dispose()));
