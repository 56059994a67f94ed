// The long-session rows of `npm run bench`: what one step costs when the conversation already holds
// 100, 1,000 or 10,000 messages (compaction off), and what one compaction costs at 10,000 messages (the
// summarising request built from the older part, the logged compaction, the next projection). A request
// needs one copy of the conversation; nothing else may grow with the session's length.
import { z } from 'zod';
import type { ModelEvent, ModelRequest, Provider } from '../src/providers/types.ts';
import { createAgentSystem } from '../src/runtime/create-agent-system.ts';
import { isCompactionRequest } from '../src/session/compaction-request.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import { defineTool } from '../src/tools/define-tool.ts';

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ n: z.number() }),
  run: async () => 'ok',
});

/** A model with no latency that calls `noop` until its request holds `untilMessages`, then answers. */
function growingModel(): Provider & { untilMessages: number } {
  let call = 0;
  const model = {
    name: 'instant',
    model: 'instant',
    contextWindow: 100_000_000,
    untilMessages: 0,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      call++;
      if (isCompactionRequest(request)) {
        yield { type: 'text.delta', text: 'The agent called noop many times; every call answered ok.' };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'done', stopReason: 'end_turn' };
      } else if (request.messages.length < model.untilMessages) {
        yield { type: 'tool_call', call: { id: `c${call}`, name: 'noop', input: { n: call } } };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'done', stopReason: 'tool_use' };
      } else {
        yield { type: 'text.delta', text: 'done' };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'done', stopReason: 'end_turn' };
      }
    },
  };
  return model;
}

export type LongSessionRow = { messages: number; perStepMicros: number };

/** A session grown to `messages` messages in one turn (compaction off), ready for more. */
async function grownSession(messages: number, extraSteps: number) {
  const model = growingModel();
  const system = createAgentSystem({
    model,
    tools: [noop],
    store: memoryStore(),
    permissionMode: 'bypass',
    projectInstructions: false,
    limits: { maxSteps: messages + extraSteps + 10 },
    compaction: { enabled: false },
  });
  const agent = await system.createAgent({ id: 'long' });
  model.untilMessages = messages;
  await agent.run('grow');
  return { model, system, agent };
}

/** One `agent.compact()` on a session of `messages` messages: a compaction-only turn, in µs. */
export async function compactionAt(messages: number): Promise<number> {
  const { system, agent } = await grownSession(messages, 0);
  // A second turn, so the first one is older than what is kept word for word.
  await agent.run('and once more');
  const start = performance.now();
  const result = await agent.compact();
  const elapsed = performance.now() - start;
  if (!result.compacted) throw new Error(`bench compaction did not compact: ${result.reason}`);
  await system.dispose();
  return elapsed * 1000;
}

/**
 * Grows one session to `messages` messages (each step adds an assistant message and a tool result),
 * then times a turn of `steps` more steps on top of it.
 */
export async function perStepAt(messages: number, steps = 50): Promise<LongSessionRow> {
  const { model, system, agent } = await grownSession(messages, steps);
  // The measured turn: `steps` more tool steps, each one projecting the whole conversation.
  model.untilMessages = messages + 2 + 2 * steps;
  const start = performance.now();
  const result = await agent.run('measure');
  const elapsed = performance.now() - start;
  if (result.reason !== 'completed') throw new Error(`bench turn ended ${result.reason}`);
  await system.dispose();
  return { messages, perStepMicros: (elapsed * 1000) / (steps + 1) };
}

/** One row per session length: the median of `rounds` runs, after a warm-up run that is not counted. */
export async function longSessionRows(rounds = 3): Promise<string[]> {
  await perStepAt(1_000);
  const rows: string[] = [];
  for (const messages of [100, 1_000, 10_000]) {
    const runs: number[] = [];
    for (let round = 0; round < rounds; round++) runs.push((await perStepAt(messages)).perStepMicros);
    const median = [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
    rows.push(`| ${messages.toLocaleString('en-US')} messages | ${median.toFixed(1)} µs |`);
  }
  const compactions: number[] = [];
  for (let round = 0; round < rounds; round++) compactions.push(await compactionAt(10_000));
  const compaction = [...compactions].sort((a, b) => a - b)[Math.floor(compactions.length / 2)]!;
  rows.push(`| one compaction at 10,000 messages | ${(compaction / 1000).toFixed(1)} ms |`);
  return rows;
}
