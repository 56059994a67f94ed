// The work of the peer benchmark (../shared/bench-peers), for agentchart and for a bare XState loop: each
// run creates its agent, streams a few text deltas before every tool call, calls one no-op tool per step,
// answers after S steps, and disposes the agent. Only the runtime around that work differs.
import { assign, createActor, fromPromise, setup, toPromise } from 'xstate';
import { z } from 'zod';
import type { ModelEvent, ModelRequest, Provider } from '../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../src/runtime/create-agent-system.ts';
import { memoryStore } from '../src/session/memory-store.ts';
import type { SessionStore } from '../src/session/types.ts';
import type { TelemetryOptions } from '../src/telemetry/telemetry-options.ts';
import { defineTool } from '../src/tools/define-tool.ts';

/** What one run does: `steps` tool steps, `deltas` text deltas before each, `delayMs` model latency. */
export type Work = { steps: number; deltas: number; delayMs: number };

export const finalText = 'All done.';
const usage = { inputTokens: 10, outputTokens: 5 };

/** Counts tool executions, so a measurement can prove every run did all its steps. */
export const toolRuns = { count: 0 };

function wait(ms: number): Promise<void> | undefined {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}

/** The step a request is at: the number in the id of its last tool result (`c<n>`), 0 at the start. */
function doneSteps(lastCallId: string | undefined): number {
  return lastCallId === undefined ? 0 : Number(lastCallId.slice(1));
}

/** The fake model's stream after `done` tool steps: deltas and one tool call, or the final answer. */
async function* modelEvents(work: Work, deltas: string[], done: number): AsyncGenerator<ModelEvent> {
  await wait(work.delayMs);
  if (done >= work.steps) {
    yield { type: 'text.delta', text: finalText };
    yield { type: 'usage', usage };
    yield { type: 'done', stopReason: 'end_turn' };
    return;
  }
  for (const text of deltas) yield { type: 'text.delta', text };
  yield { type: 'tool_call', call: { id: `c${done + 1}`, name: 'noop', input: { n: done + 1 } } };
  yield { type: 'usage', usage };
  yield { type: 'done', stopReason: 'tool_use' };
}

const deltaCache = new Map<number, string[]>();
/** The delta texts of a step, built once per count so that no run pays for building them. */
function deltaTexts(work: Work): string[] {
  let texts = deltaCache.get(work.deltas);
  if (!texts) {
    texts = Array.from({ length: work.deltas }, (_, index) => `d${index} `);
    deltaCache.set(work.deltas, texts);
  }
  return texts;
}

/** The fake model as an agentchart provider: stateless, it reads the step from the last message. */
export function benchModel(work: Work): Provider {
  const deltas = deltaTexts(work);
  return {
    name: 'bench',
    model: 'bench-1',
    stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const last = request.messages.at(-1);
      return modelEvents(work, deltas, doneSteps(last?.role === 'tool' ? last.callId : undefined));
    },
  };
}

const noopInput = z.object({ n: z.number() });

export const noopTool = defineTool({
  name: 'noop',
  description: 'Does nothing and returns a short string.',
  access: 'none',
  concurrencySafe: true,
  input: noopInput,
  run: async () => {
    toolRuns.count++;
    return 'ok';
  },
});

/** One shared system, as a host keeps it; every run is a fresh agent whose session is removed after. */
export function benchSystem(
  work: Work,
  store: SessionStore = memoryStore(),
  telemetry?: TelemetryOptions,
): AgentSystem {
  return createAgentSystem({
    ...(telemetry !== undefined ? { telemetry } : {}),
    model: benchModel(work),
    tools: [noopTool],
    store,
    permissionMode: 'bypass',
    projectInstructions: false,
    limits: { maxSteps: work.steps + 1 },
  });
}

export async function agentchartRun(system: AgentSystem, store: SessionStore): Promise<void> {
  const agent = await system.createAgent({ instructions: 'You are a benchmark agent.' });
  const result = await agent.run('Run the benchmark.');
  await agent.dispose();
  await store.remove(agent.sessionId);
  if (result.reason !== 'completed' || result.text !== finalText) {
    throw new Error(`bench run ended ${result.reason} with ${JSON.stringify(result.text)}`);
  }
}

// ---- the bare XState loop: requesting ⇄ executingTools, one promise actor per model call and tool run ----

type BareCall = { id: string; input: { n: number } };
type BareMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; calls: BareCall[] }
  | { role: 'tool'; callId: string; text: string };

async function bareModelCall(
  work: Work,
  deltas: string[],
  messages: BareMessage[],
): Promise<BareMessage & { role: 'assistant' }> {
  const last = messages.at(-1);
  let text = '';
  const calls: BareCall[] = [];
  for await (const event of modelEvents(
    work,
    deltas,
    doneSteps(last?.role === 'tool' ? last.callId : undefined),
  )) {
    if (event.type === 'text.delta') text += event.text;
    else if (event.type === 'tool_call') calls.push(event.call as BareCall);
  }
  return { role: 'assistant', text, calls };
}

const bareLoop = setup({
  types: {} as {
    context: { work: Work; deltas: string[]; messages: BareMessage[]; calls: BareCall[]; text: string };
    input: { work: Work };
  },
  actors: {
    model: fromPromise(({ input }: { input: { work: Work; deltas: string[]; messages: BareMessage[] } }) =>
      bareModelCall(input.work, input.deltas, input.messages),
    ),
    tools: fromPromise(async ({ input }: { input: BareCall[] }) => {
      const results: BareMessage[] = [];
      for (const call of input) {
        noopInput.parse(call.input);
        toolRuns.count++;
        results.push({ role: 'tool', callId: call.id, text: 'ok' });
      }
      return results;
    }),
  },
}).createMachine({
  context: ({ input }) => ({
    work: input.work,
    deltas: deltaTexts(input.work),
    messages: [{ role: 'user', text: 'Run the benchmark.' }],
    calls: [],
    text: '',
  }),
  initial: 'requesting',
  states: {
    requesting: {
      invoke: {
        src: 'model',
        input: ({ context }) => ({ work: context.work, deltas: context.deltas, messages: context.messages }),
        onDone: [
          {
            guard: ({ event }) => event.output.calls.length > 0,
            target: 'executingTools',
            // Pushed in place, as the peer's loop does: the cheapest XState can be.
            actions: assign(({ context, event }) => {
              context.messages.push(event.output);
              return { calls: event.output.calls };
            }),
          },
          { target: 'done', actions: assign({ text: ({ event }) => event.output.text }) },
        ],
        onError: 'failed',
      },
    },
    executingTools: {
      invoke: {
        src: 'tools',
        input: ({ context }) => context.calls,
        onDone: {
          target: 'requesting',
          actions: assign(({ context, event }) => {
            context.messages.push(...event.output);
            return {};
          }),
        },
        onError: 'failed',
      },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => context.text,
});

export async function bareXStateRun(work: Work): Promise<void> {
  const actor = createActor(bareLoop, { input: { work } });
  actor.start();
  const text = await toPromise(actor);
  if (text !== finalText) throw new Error(`bare loop ended with ${JSON.stringify(text)}`);
}
