// A tool whose calls run until the test ends them, even after an abort: the abort is recorded but the
// call keeps running until `finish`. This keeps a cancelling batch observable (it waits for its calls),
// which a tool that stops at once on abort would skip through in one tick.
import { z } from 'zod';
import {
  type AnyTool,
  defineTool,
  type ToolAccess,
  type ToolOutput,
} from '../../../src/tools/define-tool.ts';

export class HoldingTool {
  readonly tool: AnyTool;
  /** Call ids in the order they started. */
  readonly started: string[] = [];
  /** Call ids whose signal fired, in order. */
  readonly aborted: string[] = [];
  /** Call ids running right now, in start order. */
  readonly running: string[] = [];
  /** Largest number of calls of this tool that ran at the same time. */
  peak = 0;
  private readonly resolvers = new Map<string, (output: ToolOutput) => void>();

  constructor(name: string, options: { safe?: boolean; access?: ToolAccess } = {}) {
    this.tool = defineTool({
      name,
      description: `held test tool ${name}`,
      access: options.access ?? 'none',
      concurrencySafe: options.safe ?? true,
      input: z.object({ value: z.string() }),
      run: (_input, ctx) =>
        new Promise<ToolOutput>((resolve) => {
          this.started.push(ctx.callId);
          this.running.push(ctx.callId);
          this.peak = Math.max(this.peak, this.running.length);
          this.resolvers.set(ctx.callId, resolve);
          ctx.signal.addEventListener('abort', () => this.aborted.push(ctx.callId));
        }),
    });
  }

  get name(): string {
    return this.tool.name;
  }

  /** Ends a running call with `output` (default `done <callId>`). */
  finish(callId: string, output: ToolOutput = `done ${callId}`): void {
    const resolve = this.resolvers.get(callId);
    if (!resolve)
      throw new Error(`${this.name}: call ${callId} is not running (running: ${this.running.join(', ')})`);
    this.resolvers.delete(callId);
    this.running.splice(this.running.indexOf(callId), 1);
    resolve(output);
  }
}
