// Heap per idle agent and per idle conversation, on the peer benchmark's neutral history: five turns of
// [user text, assistant text + one tool call, tool result, assistant text], with strings unique per
// conversation so that nothing is shared between instances. agentchart's conversation is its session
// log, so the history is written by five real turns against a model that replays it.
import { z } from 'zod';
import type { ModelEvent, ModelRequest, Provider } from '../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../src/runtime/create-agent-system.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import { defineTool } from '../src/tools/define-tool.ts';
import { noopTool } from './peer-work.ts';

const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor';
const usage = { inputTokens: 10, outputTokens: 5 };

/** Turn `k` of conversation `i`: what the user says, the call, the tool's answer and the last word. */
function historyTurn(i: number, k: number) {
  return {
    user: `u${i}.${k} ${filler}`,
    calling: `a${i}.${k} calling`,
    callId: `h${i}_${k + 1}`,
    answer: `a${i}.${k} ${filler}`,
  };
}

function historyModel(): Provider {
  return {
    name: 'history',
    model: 'history-1',
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const messages = request.messages;
      let userIndex = messages.length - 1;
      while (messages[userIndex]!.role !== 'user') userIndex--;
      const user = messages[userIndex] as { content: string };
      const [, i, k] = /^u(\d+)\.(\d+) /.exec(user.content)!;
      const turn = historyTurn(Number(i), Number(k));
      if (messages.at(-1)!.role === 'user') {
        yield { type: 'text.delta', text: turn.calling };
        yield { type: 'tool_call', call: { id: turn.callId, name: 'noop', input: { n: Number(k) + 1 } } };
        yield { type: 'usage', usage };
        yield { type: 'done', stopReason: 'tool_use' };
      } else {
        yield { type: 'text.delta', text: turn.answer };
        yield { type: 'usage', usage };
        yield { type: 'done', stopReason: 'end_turn' };
      }
    },
  };
}

const historyTool = defineTool({
  name: 'noop',
  description: noopTool.description,
  access: 'none',
  concurrencySafe: true,
  input: z.object({ n: z.number() }),
  // The result of call h<i>_<n> is "r<i>.<n-1> ok".
  run: async ({ n }, { callId }) => `r${callId.slice(1, callId.indexOf('_'))}.${n - 1} ok`,
});

function historySystem(): AgentSystem {
  return createAgentSystem({
    model: historyModel(),
    tools: [historyTool],
    store: memoryStore(),
    permissionMode: 'bypass',
    projectInstructions: false,
  });
}

async function agentWithHistory(system: AgentSystem, i: number) {
  const agent = await system.createAgent({ instructions: 'You are a benchmark agent.' });
  for (let k = 0; k < 5; k++) {
    const turn = historyTurn(i, k);
    const result = await agent.run(turn.user);
    if (result.reason !== 'completed' || result.text !== turn.answer) {
      throw new Error(`history turn ${k} ended ${result.reason}`);
    }
  }
  return agent;
}

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 4; i++) gc();
}

/**
 * Bytes of heap per idle instance, after GC: `agent` keeps the live agent idle after its five turns,
 * `conversation` keeps only its session log in the memory store (the agent disposed).
 */
export async function idleHeapBytes(kind: 'agent' | 'conversation', count: number): Promise<number> {
  const system = historySystem();
  const make = async (i: number) => {
    const agent = await agentWithHistory(system, i);
    if (kind === 'agent') return agent;
    await agent.dispose();
    return agent.sessionId;
  };
  // Lazily built module state is not a per-instance cost.
  for (let i = 0; i < 50; i++) await make(count + 1 + i);
  fullGc();
  const before = process.memoryUsage().heapUsed;
  const keep: unknown[] = [];
  for (let i = 0; i < count; i++) keep.push(await make(i));
  fullGc();
  const after = process.memoryUsage().heapUsed;
  if (keep.length !== count) throw new Error('unreachable: keeps the instances alive until measured');
  return (after - before) / count;
}

export { fullGc };
