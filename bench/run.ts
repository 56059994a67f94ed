// npm run bench: what the runtime costs beside the model. Not part of npm test; numbers go to the README.
import { z } from 'zod';
import type { ModelEvent, ModelRequest, Provider } from '../src/providers/types.ts';
import { createAgentSystem } from '../src/runtime/create-agent-system.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import { defineTool } from '../src/tools/define-tool.ts';
import { checkToolInput } from '../src/tools/tool-input.ts';
import { longSessionRows } from './long-session.ts';
import { xstateFloorPerStep } from './xstate-floor.ts';

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ n: z.number() }),
  run: async () => 'ok',
});

/** A model with no latency: `steps - 1` responses that call `noop`, then a final answer. */
function instantModel(steps: number): Provider {
  let call = 0;
  return {
    name: 'instant',
    model: 'instant',
    async *stream(_request: ModelRequest): AsyncGenerator<ModelEvent> {
      const index = call++ % steps;
      if (index < steps - 1) {
        yield { type: 'tool_call', call: { id: `c${call}`, name: 'noop', input: { n: index } } };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'done', stopReason: 'tool_use' };
      } else {
        yield { type: 'text.delta', text: 'done' };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'done', stopReason: 'end_turn' };
      }
    },
  };
}

/**
 * One turn of `steps` steps per fresh agent, `turns` agents in a row: creating and disposing agents is
 * not timed, only the turn. A fresh agent keeps the log the size a real run of that length has.
 */
async function runtimePerStep(steps: number, turns: number): Promise<number> {
  const system = createAgentSystem({
    model: instantModel(steps),
    tools: [noop],
    store: memoryStore(),
    permissionMode: 'bypass',
    projectInstructions: false,
    limits: { maxSteps: steps + 1 },
  });
  let elapsed = 0;
  for (let i = 0; i <= turns; i++) {
    const agent = await system.createAgent({ id: `bench-${i}` });
    const start = performance.now();
    const result = await agent.run('go');
    // The first turn warms the JIT and is not counted.
    if (i > 0) elapsed += performance.now() - start;
    if (result.reason !== 'completed') throw new Error(`bench turn ended ${result.reason}`);
    await agent.dispose();
  }
  await system.dispose();
  return (elapsed * 1000) / (steps * turns);
}

/** The same work as a hand-written loop: stream, collect, run the tool, append every event. */
async function plainLoopPerStep(steps: number, turns: number): Promise<number> {
  const model = instantModel(steps);
  const log: unknown[] = [];
  const append = (type: string, data: unknown) => log.push({ seq: log.length, ts: Date.now(), type, data });
  const start = performance.now();
  for (let t = 0; t < turns; t++) {
    append('turn.start', {});
    for (let s = 0; s < steps; s++) {
      append('step.start', {});
      const calls: { id: string; name: string; input: unknown }[] = [];
      let text = '';
      for await (const event of model.stream(
        { system: '', tools: [], messages: [] },
        new AbortController().signal,
      )) {
        if (event.type === 'tool_call') calls.push(event.call);
        if (event.type === 'text.delta') text += event.text;
      }
      append('assistant.message', { text, calls });
      for (const call of calls) {
        append('tool.call', call);
        const parsed = checkToolInput(noop.input, call.input);
        if (!parsed.ok) throw new Error(parsed.message);
        append('tool.result', {
          callId: call.id,
          content: await noop.run(parsed.value as { n: number }, {} as never),
        });
      }
      append('step.end', {});
      if (calls.length === 0) break;
    }
    append('turn.end', {});
  }
  return ((performance.now() - start) * 1000) / (steps * turns);
}

async function heapPerIdleAgent(count: number): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const system = createAgentSystem({
    model: instantModel(1),
    tools: [noop],
    store: memoryStore(),
    permissionMode: 'bypass',
    projectInstructions: false,
  });
  for (let i = 0; i < count; i++) await system.createAgent({ id: `idle-${i}` });
  gc?.();
  const after = process.memoryUsage().heapUsed;
  await system.dispose();
  return (after - before) / count;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const rounds = 5;
const rows: string[] = [];
for (const steps of [10, 100]) {
  const turns = Math.max(20, Math.round(2000 / steps));
  const runtime: number[] = [];
  const plain: number[] = [];
  const floor: number[] = [];
  for (let r = 0; r < rounds; r++) {
    runtime.push(await runtimePerStep(steps, turns));
    plain.push(await plainLoopPerStep(steps, turns));
    floor.push(await xstateFloorPerStep(steps, turns));
  }
  const rt = median(runtime);
  const pl = median(plain);
  const fl = median(floor);
  rows.push(
    `| ${steps} steps/turn | ${rt.toFixed(1)} µs | ${fl.toFixed(1)} µs | ${pl.toFixed(1)} µs | ${(rt / pl).toFixed(1)}× |`,
  );
}
const heap = await heapPerIdleAgent(1000);
console.log(
  '| workload | agentchart per step | XState floor (same actor traffic, no work) | plain async loop per step | agentchart / plain |',
);
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(
  `\nheap per idle agent: ${(heap / 1024).toFixed(1)} KiB (1000 agents${(globalThis as { gc?: unknown }).gc ? ', after gc' : ', run with --expose-gc for a cleaner figure'})`,
);
console.log('\n| long session (compaction off while it grows) | cost |');
console.log('|---|---|');
for (const row of await longSessionRows()) console.log(row);
console.log(`\nnode ${process.version}, median of ${rounds} rounds (long-session rows: median of 3)`);
