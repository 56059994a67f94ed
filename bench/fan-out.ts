// The fan-out rows of `npm run bench`: one parent hands 100 pieces of work of 5 steps each to children, as
// background agents (all at once, the parent waiting in `waitingForAgents`) and as 100 `task` calls one
// after another; wall time and event-loop lag p99 for both, and the heap one live background child holds.
// The model answers after 5 ms (real time), as in the burst rows: 100 children × 5 steps in the background
// overlap, the same work as `task` calls waits for each answer in turn.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { z } from 'zod';
import { SimulatedClock } from '../src/core/clock.ts';
import type { ModelEvent, ModelRequest, Provider } from '../src/providers/types.ts';
import { createAgentSystem } from '../src/runtime/create-agent-system.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import { backgroundAgentTools } from '../src/tools/background-agents.ts';
import { defineTool } from '../src/tools/define-tool.ts';
import { taskTool } from '../src/tools/task.ts';

const children = 100;
const childSteps = 5;
/** Each answer's latency (ms, real time): the children then overlap as they would on a real model. */
const latencyMs = 5;

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ n: z.number() }),
  run: async () => 'ok',
});

type Plan = 'background' | 'task' | 'hold';

/**
 * The parent starts its children (all in one response, or one `task` per step); each child calls `noop`
 * until its fifth step and then answers, or (`hold`) waits for a message from its parent that never comes.
 */
function fanOutModel(plan: Plan): Provider {
  let call = 0;
  const answer = (text: string, calls: { name: string; input: unknown }[] = []): ModelEvent[] => [
    ...(text ? [{ type: 'text.delta' as const, text }] : []),
    ...calls.map((c) => ({ type: 'tool_call' as const, call: { id: `c${++call}`, ...c } })),
    { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
    { type: 'done', stopReason: calls.length > 0 ? 'tool_use' : 'end_turn' },
  ];
  const steps = (request: ModelRequest) => request.messages.filter((m) => m.role === 'assistant').length;
  return {
    name: 'instant',
    model: 'instant',
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const first = request.messages.find((m) => m.role === 'user');
      const step = steps(request);
      let events: ModelEvent[];
      if (first?.role === 'user' && first.content === 'child') {
        if (plan === 'hold') events = answer('', [{ name: 'wait_agents', input: { ids: ['parent'] } }]);
        else
          events =
            step < childSteps - 1 ? answer('', [{ name: 'noop', input: { n: step } }]) : answer('done');
      } else if (plan === 'task') {
        const input = { description: 'work', prompt: 'child' };
        events = step < children ? answer('', [{ name: 'task', input }]) : answer('all done');
      } else {
        const spawns = Array.from({ length: children }, () => ({
          name: 'spawn_agent',
          input: { prompt: 'child' },
        }));
        events = step === 0 ? answer('', spawns) : answer('all done');
      }
      // Model latency, as the burst rows have it: the event loop is free while a request is out.
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      yield* events;
    },
  };
}

function systemFor(plan: Plan) {
  return createAgentSystem({
    model: fanOutModel(plan),
    tools: [noop, taskTool(), ...backgroundAgentTools({ maxRunning: children })],
    store: memoryStore(),
    clock: new SimulatedClock(0),
    permissionMode: 'bypass',
    projectInstructions: false,
    limits: { maxSteps: children + 10, maxParallelTools: children },
    subagents: { maxSteps: childSteps + 1 },
  });
}

/** Runs the fan-out once: wall time and the event loop's p99 delay while it ran. */
async function fanOut(plan: 'background' | 'task'): Promise<{ wallMs: number; lagP99Ms: number }> {
  const system = systemFor(plan);
  const parent = await system.createAgent();
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const start = performance.now();
  const result = await parent.run('fan out');
  const wallMs = performance.now() - start;
  lag.disable();
  if (result.reason !== 'completed') throw new Error(`the ${plan} fan-out ended ${result.reason}`);
  await system.dispose();
  return { wallMs, lagP99Ms: lag.percentile(99) / 1e6 };
}

/** The heap 100 live background children hold (each waiting for its parent), per child, after GC. */
async function heapPerLiveChild(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (npm run bench does)');
  const system = systemFor('hold');
  const parent = await system.createAgent();
  gc();
  const before = process.memoryUsage().heapUsed;
  const run = parent.run('fan out');
  while (
    parent.children().filter((child) => child.log().some((e) => e.type === 'tool.started')).length < children
  )
    await new Promise((resolve) => setImmediate(resolve));
  gc();
  const perChild = (process.memoryUsage().heapUsed - before) / children;
  parent.cancel();
  await run;
  await system.dispose();
  return perChild;
}

/** The rows of the fan-out table, as markdown lines. */
export async function fanOutRows(): Promise<string[]> {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  type Run = { wallMs: number; lagP99Ms: number };
  const runs: Record<'background' | 'task', Run[]> = { background: [], task: [] };
  for (let round = 0; round < 3; round++) {
    runs.background.push(await fanOut('background'));
    runs.task.push(await fanOut('task'));
  }
  const wall = (plan: 'background' | 'task') => median(runs[plan].map((run) => run.wallMs));
  const lag = (plan: 'background' | 'task') => median(runs[plan].map((run) => run.lagP99Ms));
  const fixed = (value: number, digits = 1) => value.toFixed(digits);
  const heap = await heapPerLiveChild();
  return [
    `| ${children} children × ${childSteps} steps: wall ms | ${fixed(wall('background'), 0)} | ${fixed(wall('task'), 0)} |`,
    `| same: event-loop lag p99 ms | ${fixed(lag('background'))} | ${fixed(lag('task'))} |`,
    `| heap per live background child (waiting, after GC) | ${fixed(heap / 1024)} KB | |`,
  ];
}
