// Shared pieces of the hook tests: an echo tool, a system built around a scripted model, and the
// `hook.decided` trail of a log.
import { expect } from 'vitest';
import { z } from 'zod';
import { createAgentSystem, defineTool } from '../../src/index.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import type { LogEvent } from '../../src/session/types.ts';
import { scripted } from '../../src/testing.ts';

/** The inputs the echo tool actually ran with. */
export function echoTool(ran: string[] = []) {
  return defineTool({
    name: 'echo',
    description: 'Echo text',
    access: 'exec',
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      ran.push(text);
      return `echo: ${text}`;
    },
  });
}

export function counterIds(prefix = 'id') {
  let n = 0;
  return () => `${prefix}${++n}`;
}

export function steppingClock() {
  let time = 1000;
  return {
    now: () => time++,
    setTimer: (callback: () => void, ms: number) => {
      const handle = setTimeout(callback, ms);
      return () => clearTimeout(handle);
    },
  };
}

export type ScriptSteps = Parameters<typeof scripted>[0];

export async function hookedAgent(steps: ScriptSteps, options: Partial<AgentSystemOptions> = {}) {
  const ran: string[] = [];
  const model = scripted(steps);
  const system = createAgentSystem({
    model,
    tools: [echoTool(ran)],
    ids: counterIds(),
    clock: steppingClock(),
    projectInstructions: false,
    permissionMode: 'bypass',
    ...options,
  });
  const agent = await system.createAgent({ id: 'a' });
  return { model, system, agent, ran };
}

/** `point hook outcome[: reason]` for each `hook.decided` of a log. */
export function hookTrail(log: readonly LogEvent[]): string[] {
  return log
    .filter((event) => event.type === 'hook.decided')
    .map((event) => {
      const { point, hook, outcome, reason } = event.data as {
        point: string;
        hook: string;
        outcome: string;
        reason?: string;
      };
      return `${point} ${hook} ${outcome}${reason ? `: ${reason}` : ''}`;
    });
}

/** The tool results of a log: `callId outcome content`. */
export function results(log: readonly LogEvent[]): string[] {
  return log
    .filter((event) => event.type === 'tool.result')
    .map((event) => {
      const { callId, outcome, content } = event.data as { callId: string; outcome: string; content: string };
      return `${callId} ${outcome} ${content}`;
    });
}

export const echoCall = (id: string, text: string) => ({ id, name: 'echo', input: { text } });

/**
 * A cancel while a `point` hook of the list runs (one that never answers by itself): the hook is aborted,
 * the turn ends canceled, no request is made and no decision is logged. The cancel comes once the hook
 * has started, not after a guess at how long that takes.
 */
export async function expectCancelAbortsHook(point: 'preStep' | 'request'): Promise<void> {
  let aborted = false;
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const hanging = (_input: unknown, { signal }: { signal: AbortSignal }) =>
    new Promise<never>(() => {
      started();
      signal.addEventListener('abort', () => {
        aborted = true;
      });
    });
  const hooks = point === 'preStep' ? { preStep: [hanging] } : { request: [hanging] };
  const { agent, system, model } = await hookedAgent([{ text: 'never' }], { hooks });
  const run = agent.run('go');
  await running;
  agent.cancel();
  expect((await run).reason).toBe('canceled');
  expect(aborted).toBe(true);
  expect(model.requests).toHaveLength(0);
  expect(hookTrail(agent.log())).toEqual([]);
  await system.dispose();
}
