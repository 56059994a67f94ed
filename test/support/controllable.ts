// Test doubles that let a test decide exactly when the model answers and when each tool call ends, so
// the real runtime can be driven into any state (mid-stream, mid-batch, waiting to retry, ...).
import { z } from 'zod';
import { ProviderError, type ProviderErrorKind } from '../../src/errors/provider-error.ts';
import type {
  ModelEvent,
  ModelRequest,
  ModelStopReason,
  Provider,
  Usage,
} from '../../src/providers/types.ts';
import { type AgentSystem, createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import type { AgentSystemOptions } from '../../src/runtime/options.ts';
import { type AnyTool, defineTool, type ToolAccess, type ToolOutput } from '../../src/tools/define-tool.ts';

/** Lets pending promise callbacks and actor messages run. Several rounds: actors chain microtasks. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** One model request waiting for the test to answer it. */
export class PendingRequest {
  private readonly queue: ModelEvent[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  aborted = false;

  constructor(
    readonly request: ModelRequest,
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => {
      this.aborted = true;
      this.wake?.();
    });
  }

  delta(text: string): this {
    return this.push({ type: 'text.delta', text });
  }

  toolCall(id: string, name: string, input: unknown): this {
    return this.push({ type: 'tool_call', call: { id, name, input } });
  }

  done(
    stopReason: ModelStopReason = 'end_turn',
    usage: Partial<Usage> = { inputTokens: 1, outputTokens: 1 },
  ): this {
    this.push({ type: 'usage', usage });
    this.ended = true;
    return this.push({ type: 'done', stopReason });
  }

  fail(kind: ProviderErrorKind, retryAfterMs?: number): this {
    this.ended = true;
    return this.push({
      type: 'error',
      error: new ProviderError({ kind, message: `test ${kind}`, retryAfterMs }),
    });
  }

  /** Answers with text and tool calls, then done. */
  answer(text: string, calls: { id: string; name: string; input: unknown }[] = []): this {
    if (text) this.delta(text);
    for (const call of calls) this.toolCall(call.id, call.name, call.input);
    return this.done(calls.length > 0 ? 'tool_use' : 'end_turn');
  }

  async *events(): AsyncGenerator<ModelEvent> {
    for (;;) {
      if (this.aborted) {
        yield { type: 'error', error: new ProviderError({ kind: 'aborted', message: 'aborted' }) };
        return;
      }
      const next = this.queue.shift();
      if (next) {
        yield next;
        if (next.type === 'done' || next.type === 'error') return;
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  get finished(): boolean {
    return this.ended;
  }

  private push(event: ModelEvent): this {
    this.queue.push(event);
    this.wake?.();
    return this;
  }
}

/** A provider that holds every request until the test answers it. */
export class GateProvider implements Provider {
  readonly name = 'gate';
  readonly model = 'gate-model';
  readonly requests: PendingRequest[] = [];
  private waiting: ((request: PendingRequest) => void)[] = [];

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const pending = new PendingRequest(structuredClone(request), signal);
    this.requests.push(pending);
    for (const resolve of this.waiting.splice(0)) resolve(pending);
    return pending.events();
  }

  /** The request number `index` (0-based), waiting for it to arrive if needed. */
  async request(index: number): Promise<PendingRequest> {
    for (;;) {
      const found = this.requests[index];
      if (found) return found;
      await new Promise<PendingRequest>((resolve) => this.waiting.push(resolve));
    }
  }
}

type RunningCall = {
  callId: string;
  input: unknown;
  signal: AbortSignal;
  resolve: (output: ToolOutput) => void;
  reject: (error: Error) => void;
};

/** A tool whose calls run until the test ends them. Records starts and aborts. */
export class GateTool {
  readonly running = new Map<string, RunningCall>();
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  readonly tool: AnyTool;

  constructor(name: string, options: { safe?: boolean; access?: 'read' | 'write' | 'exec' | 'none' } = {}) {
    this.tool = defineTool({
      name,
      description: `test tool ${name}`,
      access: options.access ?? 'none',
      concurrencySafe: options.safe ?? true,
      input: z.object({ value: z.string() }),
      run: (input, ctx) =>
        new Promise<ToolOutput>((resolve, reject) => {
          this.started.push(ctx.callId);
          this.running.set(ctx.callId, { callId: ctx.callId, input, signal: ctx.signal, resolve, reject });
          ctx.signal.addEventListener('abort', () => {
            this.aborted.push(ctx.callId);
            reject(new Error('aborted'));
          });
        }),
    });
  }

  finish(callId: string, output: ToolOutput = `done ${callId}`): void {
    const call = this.running.get(callId);
    if (!call)
      throw new Error(`tool call ${callId} is not running (running: ${[...this.running.keys()].join(', ')})`);
    this.running.delete(callId);
    call.resolve(output);
  }
}

/**
 * A system driven by the test: a `GateProvider`, one `GateTool` named `toolName`, ids `id1`, `id2`, …, no
 * instruction files; `options` add to (or replace) these.
 */
export function gatedSystem(
  toolName: string,
  access: ToolAccess,
  options: Partial<AgentSystemOptions> = {},
): { model: GateProvider; tool: GateTool; system: AgentSystem } {
  const model = new GateProvider();
  const tool = new GateTool(toolName, { access });
  let n = 0;
  const system = createAgentSystem({
    model,
    tools: [tool.tool],
    ids: () => `id${++n}`,
    projectInstructions: false,
    ...options,
  });
  return { model, tool, system };
}
