// A model and a tool for distributed-job tests and benchmarks, both taking real time. The model's answer
// is a pure function of the request (not of a call counter; a task "failing F times" is refused until F
// supervisor restart messages are in the conversation), so any worker that resumes a session goes on
// exactly where the log says the task stands: a task "make K work calls" calls `work` with n = 1, 2, …
// (n = the number of `work` results that came back "worked"), then answers. A call whose outcome a crash
// left unknown is asked for again under a new call id.
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { ProviderError } from '../../src/errors/provider-error.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../src/providers/types.ts';
import { defineTool } from '../../src/tools/define-tool.ts';

export function taskPrompt(task: string, calls: number, failures = 0): string {
  return `task ${task}: make ${calls} work calls${failures > 0 ? `, failing ${failures} times` : ''}`;
}

/** A task of a job's graph, named `id`, waiting for `dependsOn`, making `calls` work calls. */
export function graphTask(
  calls: number,
  id: string,
  dependsOn: string[] = [],
  failures = 0,
): { id: string; prompt: string; dependsOn?: string[] } {
  return { id, prompt: taskPrompt(id, calls, failures), ...(dependsOn.length > 0 ? { dependsOn } : {}) };
}

/** How many times a supervisor restarted the task, as the conversation says (its restart messages). */
function restartsTold(request: ModelRequest): number {
  return request.messages.filter(
    (message) => message.role === 'user' && message.content.startsWith('Your last turn did not finish'),
  ).length;
}

function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = Number.isFinite(ms) ? setTimeout(() => resolve(true), ms) : undefined;
    signal.addEventListener(
      'abort',
      () => {
        if (timer) clearTimeout(timer);
        resolve(false);
      },
      { once: true },
    );
  });
}

export function taskModel(delayMs: number): Provider {
  return {
    name: 'task-model',
    model: 'task-model',
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      if (!(await wait(delayMs, signal))) {
        yield { type: 'error', error: new ProviderError({ kind: 'aborted', message: 'aborted' }) };
        return;
      }
      const first = request.messages.find((message) => message.role === 'user');
      const match = /^task (\S+): make (\d+) work calls(?:, failing (\d+) times)?/.exec(
        first?.role === 'user' ? first.content : '',
      );
      const [task, wanted] = match ? [match[1]!, Number(match[2])] : ['?', 0];
      // "failing F times": the request is refused until the conversation holds F restart messages.
      if (restartsTold(request) < Number(match?.[3] ?? 0)) {
        const error = new ProviderError({ kind: 'bad_request', message: `refused ${task}` });
        yield { type: 'error', error };
        return;
      }
      const worked = request.messages.filter(
        (message) => message.role === 'tool' && message.content.startsWith('worked'),
      ).length;
      yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } };
      if (worked < wanted) {
        const id = `call-${request.messages.length}`;
        yield { type: 'tool_call', call: { id, name: 'work', input: { task, n: worked + 1 } } };
        yield { type: 'done', stopReason: 'tool_use' };
      } else {
        yield { type: 'text.delta', text: `finished ${task} after ${worked} calls` };
        yield { type: 'done', stopReason: 'end_turn' };
      }
    },
  };
}

/**
 * `work{task, n}`: waits `delayMs`, then answers "worked". With `record`, appends one line per start and
 * per finish (`start|end <task> <n> <callId> <pid>`) so a test can see what ran, where, and how often.
 */
/**
 * The `work` tool: each call takes `delayMs` (or, for a task named in `hold`, until the call is stopped or its
 * process killed) and, with `record`, appends `start`/`end` lines naming task, n, call id and pid.
 */
export function workTool(delayMs: number, record?: string, hold: readonly string[] = []) {
  return defineTool({
    name: 'work',
    description: 'Does one unit of work.',
    access: 'none',
    input: z.object({ task: z.string(), n: z.number().int() }),
    run: async ({ task, n }, context) => {
      const note = (what: string) => {
        if (record) appendFileSync(record, `${what} ${task} ${n} ${context.callId} ${process.pid}\n`);
      };
      note('start');
      const ms = hold.includes(task) ? Number.POSITIVE_INFINITY : delayMs;
      if (!(await wait(ms, context.signal))) return { content: 'stopped', isError: true };
      note('end');
      return `worked ${task} ${n}`;
    },
  });
}
