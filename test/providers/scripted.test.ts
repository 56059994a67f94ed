import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { scripted } from '../../src/providers/scripted.ts';
import type { ModelEvent, ModelMessage, ModelRequest } from '../../src/providers/types.ts';

const request = (content: string): ModelRequest => ({
  system: 's',
  tools: [],
  messages: [{ role: 'user', content }],
});

/** Events as plain data: errors become their kind and message. */
async function collect(stream: AsyncIterable<ModelEvent>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const event of stream) {
    out.push(
      event.type === 'error'
        ? { type: 'error', kind: event.error.kind, message: event.error.message }
        : event,
    );
  }
  return out;
}

describe('scripted (the test and demo model)', () => {
  it('answers request N with entry N: text in chunks, tool calls with default ids, usage, stop reason', async () => {
    const model = scripted(
      [{ text: 'Hello world', toolCalls: [{ name: 'read_file', input: { path: 'a' } }] }],
      {
        chunkSize: 4,
      },
    );
    expect(await collect(model.stream(request('hi'), new AbortController().signal))).toEqual([
      { type: 'text.delta', text: 'Hell' },
      { type: 'text.delta', text: 'o wo' },
      { type: 'text.delta', text: 'rld' },
      { type: 'tool_call', call: { id: 'call_0_0', name: 'read_file', input: { path: 'a' } } },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } },
      { type: 'done', stopReason: 'tool_use' },
    ]);
    expect(model.name).toBe('scripted');
  });

  it('waits `delayMs` on the injected clock, and an abort during the wait ends with `aborted`', async () => {
    const clock = new SimulatedClock();
    const model = scripted(
      [
        { text: 'late', delayMs: 5_000 },
        { text: 'never', delayMs: 5_000 },
      ],
      { clock },
    );
    const first = collect(model.stream(request('a'), new AbortController().signal));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(clock.pendingTimers).toBe(1);
    clock.advance(5_000);
    expect(await first).toEqual([
      { type: 'text.delta', text: 'late' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } },
      { type: 'done', stopReason: 'end_turn' },
    ]);
    const controller = new AbortController();
    const second = collect(model.stream(request('b'), controller.signal));
    await new Promise<void>((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await second).toEqual([{ type: 'error', kind: 'aborted', message: 'request aborted' }]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails mid-stream after its text when an entry has both, with the kind and retry-after given', async () => {
    const model = scripted([{ text: 'partial', error: { kind: 'overloaded', retryAfterMs: 250 } }], {
      chunkSize: 100,
    });
    const events: ModelEvent[] = [];
    for await (const event of model.stream(request('x'), new AbortController().signal)) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['text.delta', 'error']);
    const last = events[1];
    expect(
      last?.type === 'error' && [last.error.kind, last.error.retryable, last.error.retryAfterMs],
    ).toEqual(['overloaded', true, 250]);
  });

  it('lets an entry be a function of the request, and records deep copies of what it received', async () => {
    const model = scripted([(req) => ({ text: `you said ${req.messages.length} thing` })]);
    const sent = request('once');
    const events = await collect(model.stream(sent, new AbortController().signal));
    expect(events.filter((event) => (event as ModelEvent).type === 'text.delta')).toEqual([
      { type: 'text.delta', text: 'you said' },
      { type: 'text.delta', text: ' 1 thing' },
    ]);
    // A careless caller that changes its request anyway (the type says read-only) changes no record.
    (sent.messages as ModelMessage[]).push({ role: 'user', content: 'mutated later' });
    expect(model.requests).toEqual([request('once')]);
  });

  it('reports an unscripted request as an error event, and assertConsumed names what was used', async () => {
    const model = scripted([{ text: 'one' }, { text: 'two' }]);
    await collect(model.stream(request('1'), new AbortController().signal));
    expect(() => model.assertConsumed()).toThrow('scripted model used 1 of 2 script entries');
    await collect(model.stream(request('2'), new AbortController().signal));
    model.assertConsumed();
    expect(await collect(model.stream(request('3'), new AbortController().signal))).toEqual([
      {
        type: 'error',
        kind: 'bad_request',
        message: 'scripted model has no entry for request #2 (script has 2)',
      },
    ]);
  });
});
