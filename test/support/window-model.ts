// A scripted model with a small context window that behaves like a real one where compaction is
// concerned: it reports usage as about a quarter of the request's characters, refuses a request larger
// than its window with `context_overflow`, and answers compaction requests with a short summary.
import { expect } from 'vitest';
import type { ScriptStep } from '../../src/providers/scripted.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ModelMessage, ModelRequest, Provider } from '../../src/providers/types.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { project } from '../../src/session/projection.ts';
import type { LogEvent } from '../../src/session/types.ts';

/** Tokens of a request as the window model counts them: a quarter of its JSON characters, rounded up. */
export function requestTokens(request: ModelRequest): number {
  return Math.ceil(JSON.stringify(request).length / 4);
}

export type WindowModel = ReturnType<typeof scripted> & { readonly contextWindow: number };

/**
 * A model with `contextWindow` tokens. `answer(request, index)` gives the response to the `index`-th step
 * request (compaction requests are answered apart and not counted); its usage is filled in.
 */
export function windowModel(
  contextWindow: number,
  answer: (request: ModelRequest, index: number) => ScriptStep,
  options: { maxRequests?: number } = {},
): WindowModel {
  let steps = 0;
  let summaries = 0;
  const respond = (request: ModelRequest): ScriptStep => {
    const inputTokens = requestTokens(request);
    if (inputTokens > contextWindow) {
      const message = `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum`;
      return { error: { kind: 'context_overflow', message } };
    }
    if (isCompactionRequest(request)) {
      summaries++;
      return {
        text: `Summary ${summaries}: the work so far, in short.`,
        usage: { inputTokens, outputTokens: 12 },
      };
    }
    const step = answer(request, steps++);
    return { ...step, usage: { inputTokens, outputTokens: 20, ...step.usage } };
  };
  const model = scripted(new Array(options.maxRequests ?? 2_000).fill(respond));
  return Object.assign(model, { contextWindow }) as WindowModel;
}

/** A provider with a context window of `tokens` (the scripted and replay providers take none). */
export function withWindow<P extends Provider>(provider: P, tokens: number): P & { contextWindow: number } {
  return Object.assign(provider, { contextWindow: tokens });
}

/**
 * Checks that tool messages only ever follow their own assistant message, in its tool calls' order, and
 * that every call has its result. Returns how many tool messages it checked.
 */
export function expectCallsPaired(messages: readonly ModelMessage[]): number {
  let checked = 0;
  let index = 0;
  while (index < messages.length) {
    const message = messages[index++];
    expect(message?.role, `message ${index - 1} is a tool result without its call`).not.toBe('tool');
    if (message?.role !== 'assistant') continue;
    const results: string[] = [];
    for (; messages[index]?.role === 'tool'; index++) {
      const tool = messages[index];
      if (tool?.role === 'tool') results.push(tool.callId);
    }
    expect(results).toEqual(message.toolCalls.map((call) => call.id));
    checked += results.length;
  }
  return checked;
}

/** The projection of the log just after each of its compactions. */
export function projectionsAfterCompactions(log: readonly LogEvent[]): ModelMessage[][] {
  return log
    .filter((event) => event.type === 'compaction')
    .map((event) => [...project(log.slice(0, event.seq + 1), { system: '', tools: [] }).messages]);
}
