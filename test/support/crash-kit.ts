// Shared pieces of the many-agents tests (crash consistency, subagents, jobs): deterministic ids and
// time, a scripted model routed by conversation, and log invariants.
import { z } from 'zod';
import type { Clock } from '../../src/core/clock.ts';
import { type ScriptedProvider, type ScriptStep, scripted } from '../../src/providers/scripted.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { Agent } from '../../src/runtime/agent-handle.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';

/** Ids `<prefix>1`, `<prefix>2`, ...: file-name safe and the same on every run. */
export function counterIds(prefix = 'id'): () => string {
  let next = 0;
  return () => `${prefix}${++next}`;
}

/** A clock whose `now` ticks by one on every read (so `ts` orders events) and whose timers are real. */
export function tickingClock(start = 1_000): Clock {
  let time = start;
  return {
    now: () => time++,
    setTimer(callback, ms) {
      const handle = setTimeout(callback, Math.min(ms, 2_000_000_000));
      return () => clearTimeout(handle);
    },
  };
}

/** The first user message of a request: who is asking, when every agent gets its own prompt. */
export function firstUser(request: ModelRequest): string {
  const message = request.messages.find((m) => m.role === 'user');
  return message?.role === 'user' ? message.content : '';
}

/** How many model responses the conversation already holds: the step index within the agent. */
export function stepIndex(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === 'assistant').length;
}

/**
 * A scripted model shared by many agents: it answers by conversation (first user message) and step,
 * so the answers do not depend on the order in which concurrent agents reach the model.
 */
export function routedModel(
  routes: Record<string, ScriptStep[] | ((request: ModelRequest) => ScriptStep)>,
  fallback?: (request: ModelRequest) => ScriptStep,
): ScriptedProvider {
  const answer = (request: ModelRequest): ScriptStep => {
    const route = routes[firstUser(request)];
    if (typeof route === 'function') return route(request);
    const step = route?.[stepIndex(request)];
    if (step) return step;
    if (fallback) return fallback(request);
    return { error: { kind: 'bad_request', message: `no route for "${firstUser(request)}"` } };
  };
  return scripted(new Array(100_000).fill(answer));
}

/** A tool that answers at once. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Echo text',
  access: 'none',
  concurrencySafe: true,
  input: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
});

/** Breaks with a message naming the first tool call without exactly one result, or a result without a call. */
export function assertCallsPaired(events: readonly LogEvent[], label = 'log'): void {
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'tool.call')
      calls.set(String(event.data.callId), (calls.get(String(event.data.callId)) ?? 0) + 1);
    if (event.type === 'tool.result')
      results.set(String(event.data.callId), (results.get(String(event.data.callId)) ?? 0) + 1);
  }
  for (const [callId, count] of calls) {
    if (count !== 1 || results.get(callId) !== 1)
      throw new Error(
        `${label}: call ${callId} has ${count} tool.call and ${results.get(callId) ?? 0} tool.result`,
      );
  }
  for (const callId of results.keys()) {
    if (!calls.has(callId)) throw new Error(`${label}: tool.result ${callId} has no tool.call`);
  }
}

/** The turn numbers of `turn.start` events, in log order. */
export function turnStarts(events: readonly LogEvent[]): number[] {
  return events.filter((event) => event.type === 'turn.start').map((event) => event.turn ?? -1);
}

/**
 * Runs pending callbacks until `condition` holds; fails loudly instead of hanging. After the first
 * rounds it also lets real time pass, so file-system work on a loaded machine can finish.
 */
export async function until(condition: () => boolean, what: string, rounds = 5_000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (condition()) return;
    await new Promise<void>((resolve) => (i < 500 ? setImmediate(resolve) : setTimeout(resolve, 2)));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Resolves with the first event of `agent`'s log (logged already, or to come) that `matches`. */
export function logged(agent: Agent, matches: (event: LogEvent) => boolean): Promise<LogEvent> {
  return new Promise((resolve) => {
    const found = agent.log().find(matches);
    if (found) return resolve(found);
    const stop = agent.onLog((event) => {
      if (!matches(event)) return;
      stop();
      resolve(event);
    });
  });
}
