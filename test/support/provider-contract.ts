import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelEvent, ModelRequest, Provider, ProviderPart } from '../../src/providers/types.ts';
import { overflowCases } from './provider-contract-overflow.ts';
import { collapse, collect, plain, sampleRequest } from './provider-stream.ts';
import type { WireReply } from './wire/reply.ts';

/** Every case of the shared provider contract; each runs for every provider that does not exempt it. */
export const allContractCases = [
  'text',
  'tool_calls',
  'parallel_tool_calls',
  'thinking',
  'usage',
  'usage_gaps',
  'abort',
  'abort_before_response',
  'rate_limit',
  'overloaded',
  'server_error',
  'connection_reset',
  'malformed_stream',
  'error_event',
  'truncated',
  'invalid_tool_json',
  'context_overflow',
  'context_overflow_event',
  'context_overflow_compatible',
] as const;
export type ContractCase = (typeof allContractCases)[number];

/**
 * One provider under test, wired to a scriptable backend (a fake vendor server, or a script).
 *
 * Contract: `reply` queues the answer to the next request only; `requestCount` counts every attempt the
 * backend saw; `close` releases the backend and may be called once.
 */
export interface ProviderHarness {
  readonly provider: Provider;
  /** True when a real SDK talks HTTP to a fake server (HTTP statuses are then reported). */
  readonly wire: boolean;
  /** The answer to the next request. */
  reply(reply: WireReply): void;
  /** Makes the backend take the next request and never answer it (wire harnesses only). */
  stall(): void;
  /** Resolves once the backend has received `count` requests. */
  whenRequests(count: number): Promise<void>;
  /** How many requests (HTTP attempts) the backend received. */
  requestCount(): number;
  /** The thinking/reasoning content that request `index` carried back to the vendor. */
  sentParts(index: number): unknown[];
  /** The provider part the adapter should emit for this thinking. */
  expectedPart(thinking: { pieces: string[]; signature: string }): ProviderPart;
  close(): Promise<void>;
}

const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** The expected plain form of an `error` event; HTTP statuses are only reported over the wire. */
function failure(
  harness: ProviderHarness,
  expected: { kind: string; retryable: boolean; status?: number; retryAfterMs?: number },
) {
  const { kind, retryable, status, retryAfterMs } = expected;
  return {
    type: 'error',
    error: { kind, retryable, retryAfterMs, status: harness.wire ? status : undefined },
  };
}

/** Each case drives one harness through one situation and checks the exact event sequence. */
const contractCases: Record<ContractCase, (harness: ProviderHarness) => Promise<void>> = {
  ...overflowCases,
  text: async (harness) => {
    harness.reply({ turn: { text: ['Hel', 'lo, ', 'world'] } });
    const events = await collect(harness.provider);
    expect(events.filter((event) => event.type === 'text.delta').length).toBeGreaterThan(1);
    expect(collapse(events)).toEqual([
      { type: 'text.delta', text: 'Hello, world' },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'end_turn' },
    ]);
  },
  tool_calls: async (harness) => {
    harness.reply({
      turn: {
        text: ['Let me ', 'look.'],
        toolCalls: [
          {
            id: 'call_a',
            name: 'read_file',
            argumentPieces: ['{"pa', 'th": "sr', 'c/a.ts", ', '"limit"', ': 10}'],
          },
          { id: 'call_b', name: 'grep', argumentPieces: ['{"pattern":', ' "fo', 'o"}'] },
        ],
      },
    });
    expect(collapse(await collect(harness.provider))).toEqual([
      { type: 'text.delta', text: 'Let me look.' },
      {
        type: 'tool_call',
        call: { id: 'call_a', name: 'read_file', input: { path: 'src/a.ts', limit: 10 } },
      },
      { type: 'tool_call', call: { id: 'call_b', name: 'grep', input: { pattern: 'foo' } } },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'tool_use' },
    ]);
  },
  parallel_tool_calls: async (harness) => {
    harness.reply({
      turn: {
        interleave: true,
        toolCalls: [
          { id: 'call_1', name: 'read_file', argumentPieces: ['{"path":', '"a.ts"}'] },
          { id: 'call_2', name: 'read_file', argumentPieces: ['{"path":', '"b.ts"', '}'] },
          { id: 'call_3', name: 'list_dir', argumentPieces: [] },
        ],
      },
    });
    expect(await collect(harness.provider)).toEqual([
      { type: 'tool_call', call: { id: 'call_1', name: 'read_file', input: { path: 'a.ts' } } },
      { type: 'tool_call', call: { id: 'call_2', name: 'read_file', input: { path: 'b.ts' } } },
      { type: 'tool_call', call: { id: 'call_3', name: 'list_dir', input: {} } },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'tool_use' },
    ]);
  },
  thinking: async (harness) => {
    const thinking = { pieces: ['Think', 'ing about ', 'it.'], signature: 'sig-123' };
    harness.reply({ turn: { thinking, text: ['Answer.'] } });
    const events = await collect(harness.provider);
    const part = harness.expectedPart(thinking);
    expect(collapse(events)).toEqual([
      { type: 'thinking.delta', text: 'Thinking about it.' },
      { type: 'text.delta', text: 'Answer.' },
      // Vendor content is whole only when the response is: it comes last, before the usage.
      { type: 'provider_part', part },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'end_turn' },
    ]);
    // The next request carries the part back verbatim.
    harness.reply({ turn: { text: ['ok'] } });
    const next: ModelRequest = {
      ...sampleRequest,
      messages: [
        ...sampleRequest.messages,
        { role: 'assistant', text: 'Answer.', toolCalls: [], providerParts: [part] },
        { role: 'user', content: 'And?' },
      ],
    };
    await collect(harness.provider, next);
    expect(harness.sentParts(0)).toEqual([]);
    expect(harness.sentParts(1)).toEqual([part.data]);
  },
  usage: async (harness) => {
    harness.reply({
      turn: { text: ['Hi'], usage: { input: 20, output: 9, cacheRead: 7, cacheWrite: 3 } },
    });
    const events = await collect(harness.provider);
    expect(events.filter((event) => event.type === 'usage')).toEqual([
      {
        type: 'usage',
        usage: { inputTokens: 20, outputTokens: 9, cacheReadTokens: 7, cacheWriteTokens: 3 },
      },
    ]);
  },
  usage_gaps: async (harness) => {
    // Many OpenAI-compatible servers leave counts out; a broken one may send anything. Every count of the
    // usage event is a finite, non-negative integer, so the log it goes to loads again.
    harness.reply({ turn: { text: ['Hi'], rawCounts: { output: 9 } } });
    harness.reply({
      turn: { text: ['Hi'], rawCounts: { input: -4, output: 2.5, cacheRead: 'many', cacheWrite: null } },
    });
    const events = [...(await collect(harness.provider)), ...(await collect(harness.provider))];
    expect(events.filter((event) => event.type === 'usage')).toEqual([
      { type: 'usage', usage: { inputTokens: 0, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'usage', usage: { inputTokens: 0, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ]);
  },
  abort: async (harness) => {
    harness.reply({ turn: { text: ['first chunk ', 'second chunk ', 'third chunk'], ending: 'hang' } });
    const events = await collect(harness.provider, sampleRequest, (event, controller) => {
      if (event.type === 'text.delta') controller.abort();
    });
    expect(plain(events.slice(-1))).toEqual([failure(harness, { kind: 'aborted', retryable: false })]);
    expect(events.slice(0, -1).every((event) => event.type === 'text.delta')).toBe(true);
  },
  abort_before_response: async (harness) => {
    harness.stall();
    const controller = new AbortController();
    const events: ModelEvent[] = [];
    const reading = (async () => {
      for await (const event of harness.provider.stream(sampleRequest, controller.signal)) events.push(event);
    })();
    await harness.whenRequests(1);
    controller.abort();
    await reading;
    expect(plain(events)).toEqual([failure(harness, { kind: 'aborted', retryable: false })]);
  },
  rate_limit: async (harness) => {
    harness.reply({
      httpError: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '1500' } },
    });
    expect(plain(await collect(harness.provider))).toEqual([
      failure(harness, { kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 1500 }),
    ]);
    expect(harness.requestCount()).toBe(1);
  },
  overloaded: async (harness) => {
    harness.reply({ httpError: { status: 529, message: 'Overloaded' } });
    expect(plain(await collect(harness.provider))).toEqual([
      failure(harness, { kind: 'overloaded', retryable: true, status: 529 }),
    ]);
    expect(harness.requestCount()).toBe(1);
  },
  server_error: async (harness) => {
    harness.reply({ httpError: { status: 500, message: 'boom' } });
    expect(plain(await collect(harness.provider))).toEqual([
      failure(harness, { kind: 'server', retryable: true, status: 500 }),
    ]);
    expect(harness.requestCount()).toBe(1);
  },
  connection_reset: async (harness) => {
    harness.reply({ turn: { text: ['partial ', 'answer'], ending: 'reset' } });
    const events = collapse(await collect(harness.provider));
    expect(plain(events.slice(-1))).toEqual([failure(harness, { kind: 'network', retryable: true })]);
    expect(events.slice(0, -1).every((event) => event.type === 'text.delta')).toBe(true);
  },
  malformed_stream: async (harness) => {
    harness.reply({ turn: { text: ['partial'], ending: 'malformed' } });
    expect(plain(collapse(await collect(harness.provider)))).toEqual([
      { type: 'text.delta', text: 'partial' },
      failure(harness, { kind: 'server', retryable: true }),
    ]);
  },
  error_event: async (harness) => {
    harness.reply({ turn: { text: ['partial'], ending: 'error_event' } });
    expect(plain(collapse(await collect(harness.provider)))).toEqual([
      { type: 'text.delta', text: 'partial' },
      failure(harness, { kind: 'server', retryable: true }),
    ]);
  },
  truncated: async (harness) => {
    harness.reply({ turn: { text: ['partial'], ending: 'truncated' } });
    const events = collapse(await collect(harness.provider));
    expect(plain([events[0]!, events.at(-1)!])).toEqual([
      { type: 'text.delta', text: 'partial' },
      failure(harness, { kind: 'network', retryable: true }),
    ]);
  },
  invalid_tool_json: async (harness) => {
    harness.reply({
      turn: { toolCalls: [{ id: 'call_x', name: 'read_file', argumentPieces: ['{"path": ', '"a.ts"'] }] },
    });
    expect(await collect(harness.provider)).toEqual([
      { type: 'tool_call', call: { id: 'call_x', name: 'read_file', input: '{"path": "a.ts"' } },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'tool_use' },
    ]);
  },
};

/** The cases a provider leaves out, each with the reason it does not apply (a sentence, never empty). */
export type ContractExemptions = Partial<Record<ContractCase, string>>;

/**
 * The contract every provider adapter must pass (see `Provider` in src/providers/types.ts). Every case runs
 * for every provider unless the provider names it in `exempt` with the reason it does not apply, so a case
 * added to the suite runs for everybody until someone says why it should not.
 */
export function runProviderContract(
  name: string,
  makeHarness: () => Promise<ProviderHarness>,
  exempt: ContractExemptions = {},
): void {
  describe(`provider contract: ${name}`, () => {
    let harness: ProviderHarness;
    beforeEach(async () => {
      harness = await makeHarness();
    });
    afterEach(async () => {
      await harness.close();
    });
    const unexplained = Object.entries(exempt).filter(([, reason]) => (reason ?? '').trim().length < 10);
    it('names a reason for every case it leaves out', () => {
      expect(unexplained).toEqual([]);
    });
    for (const name of allContractCases) {
      if (exempt[name] === undefined) it(name, () => contractCases[name](harness));
    }
  });
}
