// Resume after a crash. The first run dies in the middle of a tool call, as a process does when the
// machine loses power; the session log on disk holds everything up to that moment. The second run resumes
// the session: the cut-off call gets an `unknown` result, and the agent checks and carries on.
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/resume.ts
//      (it prints the session id and dies), then again with the id: npx tsx examples/resume.ts <id>
import { createAgentSystem, defineTool, fileStore } from 'agentchart';
import { openai } from 'agentchart/openai';
import { z } from 'zod';

const sessionId = process.argv[2];
const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const model = openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY });
const migrate = defineTool({
  name: 'migrate',
  description: 'Applies the pending database migrations.',
  access: 'write',
  input: z.object({}),
  run: async () => {
    if (sessionId === undefined) process.kill(process.pid, 'SIGKILL'); // the crash, on the first run
    return 'No migrations pending.';
  },
});
const system = createAgentSystem({
  model,
  tools: [migrate],
  permissionMode: 'accept-edits',
  store: fileStore('.agentchart/sessions'),
});
const agent = sessionId === undefined ? await system.createAgent() : await system.resumeAgent(sessionId);
console.log(`session ${agent.id}`);
const result = await agent.run(
  sessionId === undefined
    ? 'Migrate the database.'
    : 'You were interrupted: check where things stand, and finish.',
);
console.log(result.text);
await system.dispose();
