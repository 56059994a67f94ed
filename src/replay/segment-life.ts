// A resumed recording is replayed one segment per process (recording-segments.ts). Where the recording's
// process was killed, the replay's must fall silent at the same seq: its model and tools answer nothing
// more, so nothing past the recording's end is asked for or written.

import { recordedPrices } from '../providers/prices.ts';
import type { ModelEvent, ModelRequest, Provider } from '../providers/types.ts';
import { recordedPromptCache } from '../session/replay-provider.ts';
import type { AnyTool } from '../tools/define-tool.ts';

/**
 * Whether the process of a segment still runs. Once the replay reaches the point where the recording's
 * process was killed, its model and tools answer nothing more (what it would write is not kept).
 */
export class SegmentLife {
  alive = true;
  /** Set while an input is due but cannot be given yet: the model answers nothing until it is. */
  private held: { until: Promise<void>; release: () => void } | undefined;

  end(): void {
    this.alive = false;
  }

  /**
   * Holds the model's answers (`true`) until released (`false`): the recording gave an input at this log
   * length (a host's message, whose recipient's replay is not yet where the recording's was), so the
   * answer must come after it, as it did.
   */
  hold(held: boolean): void {
    if (held && !this.held) {
      let release: () => void = () => {};
      const until = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.held = { until, release };
    } else if (!held && this.held) {
      this.held.release();
      this.held = undefined;
    }
  }

  /** Resolves when the segment has ended or `signal` fired. */
  private gone(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  guard(tool: AnyTool): AnyTool {
    return {
      ...tool,
      run: async (input, context) => {
        if (!this.alive) {
          await this.gone(context.signal);
          return { content: 'the session was killed here in the recording', isError: true };
        }
        return tool.run(input, context);
      },
    };
  }

  stream(inner: Provider, request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const held = this.held?.until;
    if (this.alive && held) {
      const gone = this.gone(signal);
      return (async function* () {
        await Promise.race([held, gone]);
        yield* inner.stream(request, signal);
      })();
    }
    if (this.alive) return inner.stream(request, signal);
    // Nothing more comes: the stream ends once the runtime gives up on it (the replay disposes it).
    const gone = this.gone(signal);
    return {
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<ModelEvent>> => {
          await gone;
          return { done: true, value: undefined };
        },
      }),
    };
  }
}

/** The segment's model: the recorded responses, named as the segment's provider and model were. */
export function segmentModel(
  responses: Provider,
  config: Record<string, unknown>,
  life: SegmentLife,
): Provider {
  const window = config.contextWindow;
  const promptCache = recordedPromptCache(config);
  const prices = recordedPrices(config);
  return {
    name: typeof config.provider === 'string' ? config.provider : responses.name,
    model: typeof config.model === 'string' ? config.model : responses.model,
    ...(typeof window === 'number' && Number.isInteger(window) && window > 0
      ? { contextWindow: window }
      : {}),
    ...(promptCache !== undefined ? { promptCache } : {}),
    ...(prices !== undefined ? { prices } : {}),
    stream: (request, signal) => life.stream(responses, request, signal),
  };
}
