// In-process hooks that wait until the test answers them, recording the signals that aborted them: a
// graph path can then stand in a hook wait, cancel or dispose there, and check that the hook was stopped.
import type { HookAnswer, HookFunction, Hooks, WiredHookPoint } from '../../../src/hooks/hook-types.ts';

type Pending = { resolve: (answer: HookAnswer | undefined) => void; signal: AbortSignal };

export class HoldingHooks {
  /** `point:subject` of every hook that started, in order. */
  readonly started: string[] = [];
  /** `point:subject` of every hook whose signal aborted, in order. */
  readonly aborted: string[] = [];
  private readonly pending = new Map<string, Pending>();

  /** The hooks to give `createAgentSystem`: one holding hook at each point named. */
  hooks(points: readonly WiredHookPoint[]): Hooks {
    const hooks: Record<string, unknown[]> = {};
    for (const point of points) hooks[point] = [this.hold(point)];
    return hooks as Hooks;
  }

  private hold(point: WiredHookPoint): HookFunction<WiredHookPoint> {
    return (input, { signal }) => {
      const subject = 'callId' in input ? String(input.callId) : String(input.turn);
      const key = `${point}:${subject}`;
      this.started.push(key);
      signal.addEventListener('abort', () => this.aborted.push(key), { once: true });
      return new Promise((resolve) => this.pending.set(key, { resolve, signal }));
    };
  }

  /** Whether a hook waits for its answer under `key` (`preTool:c1`, `stop:1`). */
  waiting(key: string): boolean {
    return this.pending.has(key);
  }

  /** Answers the hook waiting under `key`. */
  answer(key: string, answer: HookAnswer | undefined): void {
    const pending = this.pending.get(key);
    if (!pending)
      throw new Error(`no hook waits under ${key} (waiting: ${[...this.pending.keys()].join(', ')})`);
    this.pending.delete(key);
    pending.resolve(answer);
  }

  /** Keys of hooks still waiting whose signal never aborted: must be empty once a path is over. */
  stillRunning(): string[] {
    return [...this.pending].filter(([, pending]) => !pending.signal.aborted).map(([key]) => key);
  }
}
