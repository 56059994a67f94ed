// The session log checks every event before its store sees it: an event that would not load again fails
// the flush (fail-stop) after the events before it were written, so the store always holds a loadable
// prefix. The check is cheaper than a JSON round trip, so a property compares it with one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import { LogFormatError } from '../../src/errors/log-format-error.ts';
import { checkWritable } from '../../src/session/check-writable.ts';
import { memoryStore } from '../../src/session/memory-store.ts';
import { formatLogLine, parseLogLine } from '../../src/session/schema.ts';
import { SessionLog } from '../../src/session/session-log.ts';
import type { LogEntry, LogEvent } from '../../src/session/types.ts';

const start: LogEntry = { type: 'session.start', data: { agentId: 's', config: {} } };
const queued = (message: unknown): LogEntry =>
  ({ type: 'inbox.queued', data: { id: 'q', channel: 'followup', message } }) as LogEntry;

async function openLog() {
  const store = memoryStore();
  await store.create('s');
  const log = new SessionLog({ sessionId: 's', store, clock: new SimulatedClock(5) });
  return { store, log };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'written',
    (error: unknown) => [LogFormatError.isInstance(error), (error as Error).message],
  );

describe('SessionLog.flush checks every event before the store sees it', () => {
  it('writes the events before a bad one, fails with a LogFormatError, and fails every later flush', async () => {
    const { store, log } = await openLog();
    log.append(start);
    log.append(queued('fine'));
    log.append({
      type: 'tool.result',
      data: { callId: 'c', outcome: 'ok', content: 5 },
    } as unknown as LogEntry);
    log.append(queued('after'));
    const message =
      'event 2 ("tool.result") cannot be written: bad data\n✖ Invalid input: expected string, received number\n  → at content';
    expect(await refusal(log.flush())).toEqual([true, message]);
    log.append(queued('later'));
    expect(await refusal(log.flush())).toEqual([true, message]);
    expect((await store.load('s')).events.map((event) => event.data)).toEqual([
      { agentId: 's', config: {} },
      { id: 'q', channel: 'followup', message: 'fine' },
    ]);
  });

  it('checks events appended already built (repair output, a fork seed) as well', async () => {
    const { store, log } = await openLog();
    const built: LogEvent[] = [
      { v: 1, seq: 0, ts: 1, type: 'session.start', data: { agentId: 's', config: {} } },
      { v: 1, seq: 1, ts: Number.NaN, type: 'turn.start', turn: 1, data: {} },
    ];
    log.appendBuilt(built);
    expect(await refusal(log.flush())).toEqual([
      true,
      'event 1 ("turn.start") cannot be written: ts NaN is not a finite number',
    ]);
    expect((await store.load('s')).events.map((event) => event.type)).toEqual(['session.start']);
  });
});

describe('checkWritable', () => {
  const event = (type: string, data: unknown, extra: Record<string, unknown> = {}) =>
    ({ v: 1, seq: 3, ts: 7, type, data, ...extra }) as LogEvent;
  const call = (input: unknown) => event('tool.call', { callId: 'c', name: 'n', input });
  const verdict = (value: LogEvent) => {
    try {
      checkWritable(value);
      return 'ok';
    } catch (error) {
      return (error as Error).message.replace(/^event 3 \("[^"]*"\) cannot be written: /, '');
    }
  };
  class Point {
    x = 1;
  }
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;

  it('names what JSON would change or lose, and accepts what loads back', () => {
    expect(
      [
        call({ a: [1, 'b', null, { c: true }], d: undefined }),
        call({ count: Number.NaN }),
        call([1, undefined]),
        call({ big: 1n }),
        call({ when: new Point() }),
        call({ run: () => 1 }),
        call(cycle),
        call(undefined),
        event('tool.call', { callId: 'c', name: 'n', input: {} }, { turn: -1 }),
        event('no.such.type', {}),
        event('step.end', { toolResults: Number.POSITIVE_INFINITY }),
      ].map(verdict),
    ).toEqual([
      'ok',
      'at data.input.count: NaN would be written as null',
      'at data.input[1]: undefined would be written as null',
      'at data.input.big: a bigint cannot be written as JSON',
      'at data.input.when: a Point instance would lose its class in JSON',
      'at data.input.run: a function cannot be written as JSON',
      'data nests more than 200 levels deep (or is circular)',
      'bad data\n✖ expected a value, received undefined\n  → at input',
      'turn -1 is not a count',
      'unknown event type',
      'at data.toolResults: Infinity would be written as null',
    ]);
  });

  it('never passes an event that would not load again (compared with a JSON round trip)', () => {
    // -0 is left out: JSON writes it as 0, the same number for every purpose.
    const double = fc.double().filter((number) => !Object.is(number, -0));
    const leaf = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.integer(),
      double,
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.bigInt({ min: 0n, max: 9n }),
      fc.constant(new Date(0)),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 2 }), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    const candidate = fc.oneof(
      value.map((input) => call(input)),
      fc
        .record({ content: value, callId: value })
        .map((data) => event('tool.result', { outcome: 'ok', ...data })),
      fc.record({ inputTokens: fc.oneof(fc.nat(), double), outputTokens: fc.nat() }).map((usage) =>
        event('turn.end', {
          reason: 'completed',
          usage: { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0 },
        }),
      ),
    );
    let passed = 0;
    fc.assert(
      fc.property(candidate, (written) => {
        if (verdict(written) !== 'ok') return;
        passed++;
        const loaded = parseLogLine(formatLogLine(written), 1);
        expect(loaded).toEqual(JSON.parse(JSON.stringify(written)));
        expect(loaded.data).toEqual(written.data);
      }),
      { numRuns: 2000 },
    );
    // Enough candidates pass the check for the round trip to mean something (none would prove nothing).
    expect(passed).toBeGreaterThan(100);
  });
});
