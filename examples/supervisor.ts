// A supervisor and its workers: the model starts background agents with `spawn_agent` and goes on; each
// worker answers typed JSON; a worker writes to its supervisor with `send_message`; a worker whose model
// fails is restarted from its own log. The host watches it all in the supervisor's log.
// Run: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b npx tsx examples/supervisor.ts
import { backgroundAgentTools, createAgentSystem } from 'agentchart';
import { openai } from 'agentchart/openai';
import { z } from 'zod';

const { OPENAI_BASE_URL, OPENAI_MODEL = 'qwen3:8b', OPENAI_API_KEY = 'local' } = process.env;
const Tally = z.object({ package: z.string(), failing: z.number().int().min(0) });

const system = createAgentSystem({
  model: openai({ baseURL: OPENAI_BASE_URL, model: OPENAI_MODEL, apiKey: OPENAI_API_KEY }),
  tools: backgroundAgentTools({
    agentTypes: {
      counter: {
        description: 'Counts the failing tests of one package.',
        output: Tally, // each counter's final answer is this JSON, checked, and sent back until it fits
        // A counter whose model fails is continued from its own log after 0.2 s (then 0.4 s), twice at most.
        supervision: { restart: 'on-failure', maxRestarts: 2, backoffMs: 200 },
      },
    },
  }),
  approve: 'deny', // nobody watches the workers: what would ask is refused
});
const supervisor = await system.createAgent({
  instructions:
    'You supervise. Start one counter per package with spawn_agent, then add up what they report.',
});
const turn = supervisor.run('How many tests fail in the packages core and cli?');

// The supervisor's log says what happens, as it happens: workers started, mail, restarts.
const labelOf = (id: unknown) =>
  supervisor.children().find((child) => child.id === id)?.description ?? String(id);
for await (const live of supervisor.events()) {
  if (live.type !== 'log') continue;
  const event = live.event;
  // Logged, durably, before the child starts: `children()` lists it from its start on.
  if (event.type === 'agent.spawned' && event.data.background) console.log('started a counter');
  if (event.type === 'agent.restarted')
    console.log(`restarting the ${labelOf(event.data.childSessionId)} counter: ${event.data.reason}`);
  if (event.type === 'inbox.queued' && event.data.from !== undefined)
    console.log(
      `${event.data.kind === 'result' ? 'result' : 'message'} from the ${labelOf(event.data.from)} counter`,
    );
  if (event.type === 'turn.end') break;
}

// Each worker's typed result, and the supervisor's answer once every worker has reported.
for (const worker of supervisor.children()) {
  const result = await worker.result;
  const output = result.reason === 'completed' ? JSON.stringify(result.output) : result.reason;
  console.log(`${worker.description}: ${output}`);
}
console.log((await turn).text);
await system.dispose();
