// The contract cases about requests too long for the context window: every adapter must report its
// vendor's refusal (and the usual refusals of OpenAI-compatible servers) as a `context_overflow` error
// that is not retried, so the runtime compacts the conversation instead of repeating the request.
import { expect } from 'vitest';
import type { ProviderHarness } from './provider-contract.ts';
import { collapse, collect, plain } from './provider-stream.ts';
import { compatibleOverflowServers, overflowStatus } from './wire/overflow.ts';

/** The plain form of a `context_overflow` error event; a status is reported only over the wire. */
function overflow(harness: ProviderHarness, status?: number) {
  return {
    type: 'error',
    error: {
      kind: 'context_overflow',
      retryable: false,
      retryAfterMs: undefined,
      status: harness.wire ? status : undefined,
    },
  };
}

export const overflowCases = {
  /** The vendor's own HTTP refusal: Anthropic `prompt is too long`, OpenAI `context_length_exceeded`. */
  context_overflow: async (harness: ProviderHarness) => {
    harness.reply({ overflow: 'vendor' });
    expect(plain(await collect(harness.provider))).toEqual([overflow(harness, 400)]);
    expect(harness.requestCount()).toBe(1);
  },
  /** The same refusal inside a stream that has begun (an error event, a failed response). */
  context_overflow_event: async (harness: ProviderHarness) => {
    harness.reply({ turn: { text: ['partial'], ending: 'overflow_event' } });
    expect(plain(collapse(await collect(harness.provider)))).toEqual([
      { type: 'text.delta', text: 'partial' },
      overflow(harness),
    ]);
  },
  /** vLLM, llama.cpp, Ollama and LM Studio, each in its own words and status (a 500 included). */
  context_overflow_compatible: async (harness: ProviderHarness) => {
    const seen: unknown[] = [];
    const expected: unknown[] = [];
    for (const server of compatibleOverflowServers) {
      harness.reply({ overflow: server });
      seen.push([server, plain(await collect(harness.provider))]);
      expected.push([server, [overflow(harness, overflowStatus(server))]]);
    }
    expect(seen).toEqual(expected);
    // Each refusal is an answer, not a reason to try again.
    expect(harness.requestCount()).toBe(compatibleOverflowServers.length);
  },
};
