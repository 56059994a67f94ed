// Reading a provider's stream in tests: collect every event, join chunked deltas, and turn error events
// into plain data, so whole streams compare with \`toEqual\`.
import type { ProviderError } from '../../src/errors/provider-error.ts';
import type { ModelEvent, ModelRequest, Provider } from '../../src/providers/types.ts';

/** A request with one tool and one user message, the default for `collect`. */
export const sampleRequest: ModelRequest = {
  system: 'You are a test.',
  tools: [
    { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: {} } },
  ],
  messages: [{ role: 'user', content: 'Hello' }],
};

/** Reads a whole stream; `onEvent` may abort. Fails if the stream throws (the contract forbids it). */
export async function collect(
  provider: Provider,
  modelRequest: ModelRequest = sampleRequest,
  onEvent?: (event: ModelEvent, controller: AbortController) => void,
): Promise<ModelEvent[]> {
  const controller = new AbortController();
  const events: ModelEvent[] = [];
  for await (const event of provider.stream(modelRequest, controller.signal)) {
    events.push(event);
    onEvent?.(event, controller);
  }
  return events;
}

/** Joins neighbouring text and thinking deltas, so streams chunked differently compare equal. */
export function collapse(events: ModelEvent[]): ModelEvent[] {
  const result: ModelEvent[] = [];
  for (const event of events) {
    const last = result.at(-1);
    if (
      last &&
      (event.type === 'text.delta' || event.type === 'thinking.delta') &&
      last.type === event.type
    ) {
      result[result.length - 1] = { type: event.type, text: last.text + event.text };
    } else {
      result.push(event);
    }
  }
  return result;
}

/** The plain-data form of `error` events, so they compare with `toEqual`. */
export function plain(events: ModelEvent[]): unknown[] {
  return events.map((event) =>
    event.type === 'error' ? { type: 'error', error: summary(event.error) } : event,
  );
}

function summary(error: ProviderError) {
  return {
    kind: error.kind,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    status: error.status,
  };
}
