// What one model response comes to, in the terms the runtime logs: the adapter's events summarised, or the
// same computed from a recorded stream by the reference readers beside this file.
import type {
  Citation,
  ModelEvent,
  ModelStopReason,
  ProviderPart,
  ToolCallRequest,
  Usage,
} from '../../../src/providers/types.ts';

export type Outcome = {
  text: string;
  thinking: string;
  toolCalls: ToolCallRequest[];
  providerParts: ProviderPart[];
  citations: Citation[];
  usage: Usage | undefined;
  end: { stopReason: ModelStopReason } | { error: string };
};

export function emptyOutcome(): Outcome {
  return {
    text: '',
    thinking: '',
    toolCalls: [],
    providerParts: [],
    citations: [],
    usage: undefined,
    end: { error: 'the stream ended without a stop reason' },
  };
}

/** The adapter's events, summarised: an error end is its kind. */
export function summarize(events: readonly ModelEvent[]): Outcome {
  const outcome = emptyOutcome();
  for (const event of events) {
    switch (event.type) {
      case 'text.delta':
        outcome.text += event.text;
        break;
      case 'thinking.delta':
        outcome.thinking += event.text;
        break;
      case 'tool_call':
        outcome.toolCalls.push(event.call);
        break;
      case 'provider_part':
        outcome.providerParts.push(event.part);
        break;
      case 'citation':
        outcome.citations.push(event.citation);
        break;
      case 'usage':
        outcome.usage = {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          ...event.usage,
        };
        break;
      case 'done':
        outcome.end = { stopReason: event.stopReason };
        break;
      case 'error':
        outcome.end = { error: event.error.kind };
        break;
    }
  }
  return outcome;
}

/** A vendor count as the adapters keep it: a whole, non-negative number, else 0. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

/** Tool arguments as JSON text, parsed; empty means none; text that is not JSON stays text. */
export function parseArguments(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    // The adapters hand invalid JSON on as the raw text, so the tool batch can say what was wrong.
    return json;
  }
}
