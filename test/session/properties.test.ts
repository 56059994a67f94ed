import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/core/clock.ts';
import type { ModelMessage } from '../../src/providers/types.ts';
import { planCompaction } from '../../src/session/compaction-plan.ts';
import { project, summaryPrefix } from '../../src/session/projection.ts';
import { repair } from '../../src/session/repair.ts';
import { validateSequence } from '../../src/session/schema.ts';
import { isEvent, type LogEvent } from '../../src/session/types.ts';
import { buildLog, planArbitrary } from '../support/log-arbitrary.ts';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Checks that tool messages only ever follow their own assistant message, in its toolCalls order.
 * With `complete`, every call must have its result. Returns how many tool messages it checked.
 */
function expectPaired(messages: readonly ModelMessage[], complete: boolean): number {
  let checked = 0;
  let index = 0;
  while (index < messages.length) {
    const message = messages[index++];
    expect(message?.role).not.toBe('tool');
    if (message?.role !== 'assistant') continue;
    const expected = message.toolCalls.map((call) => call.id);
    const actual: string[] = [];
    for (; messages[index]?.role === 'tool'; index++) {
      const tool = messages[index];
      if (tool?.role === 'tool') actual.push(tool.callId);
    }
    if (complete) expect(actual).toEqual(expected);
    else expect(expected.filter((id) => actual.includes(id))).toEqual(actual);
    checked += actual.length;
  }
  return checked;
}

const options = { system: 'sys', tools: [] };
const withCut = planArbitrary.chain((plan) => {
  const log = buildLog(plan);
  return fc.integer({ min: 1, max: log.length }).map((cut) => ({ log, cut: log.slice(0, cut) }));
});

/** The result/call key of an event: calls are identified by their step, since ids may repeat. */
const keyOf = (event: LogEvent, callId: string) => `${event.turn}/${event.step}/${callId}`;

describe('project (properties)', () => {
  it('is deterministic, does not mutate its input, and pairs every call with its result', () => {
    let paired = 0;
    fc.assert(
      fc.property(withCut, ({ log, cut }) => {
        for (const [events, complete] of [
          [log, true],
          [cut, false],
        ] as const) {
          const before = JSON.stringify(events);
          deepFreeze(events);
          const first = project(events, options);
          expect(project(events, options)).toEqual(first);
          expect(JSON.stringify(events)).toBe(before);
          paired += expectPaired(first.messages, complete);
        }
      }),
    );
    // The generated logs have tool calls to pair (a property over call-free logs would prove little).
    expect(paired).toBeGreaterThan(0);
  });
});

/** Prefixes of a log that end where a turn may compact: after a step, or after a turn's input. */
function boundaries(log: readonly LogEvent[]): LogEvent[][] {
  const prefixes: LogEvent[][] = [];
  log.forEach((event, index) => {
    const next = log[index + 1];
    if (event.type === 'step.end' || (event.type === 'user.message' && next?.type !== 'user.message'))
      prefixes.push(log.slice(0, index + 1));
  });
  return prefixes;
}

const isSummary = (message: ModelMessage) =>
  message.role === 'user' && message.content.startsWith(summaryPrefix);

describe('planCompaction (properties)', () => {
  it('plans ranges that start at the top, part no call from its result, keep unanswered input, and leave one summary', () => {
    const seen = { planned: 0, paired: 0 };
    fc.assert(
      fc.property(planArbitrary, fc.integer({ min: 1, max: 3 }), (plan, keepRecentTurns) => {
        for (const prefix of boundaries(buildLog(plan))) {
          const planned = planCompaction(prefix, { keepRecentTurns });
          if (!planned) continue;
          seen.planned++;
          const [from, to] = planned.replaces;
          expect(from).toBe(1);
          const answered = prefix.findLastIndex(
            (e) => isEvent(e, 'assistant.message') && !e.data.interrupted,
          );
          const unanswered = prefix.slice(answered + 1).filter((event) => event.type === 'user.message');
          expect(unanswered.every((event) => event.seq > to)).toBe(true);
          const before = project(prefix, options).messages;
          const data = {
            replaces: planned.replaces,
            summary: 'NEW',
            tokensBefore: 1,
            trigger: 'auto' as const,
          };
          const compacted = [
            ...prefix,
            { v: 1, seq: prefix.length, ts: 0, type: 'compaction' as const, data },
          ];
          const after = project(compacted, options).messages;
          // One summary, at the top; then exactly what comes after the range, word for word.
          expect(after.filter(isSummary)).toEqual([{ role: 'user', content: `${summaryPrefix}NEW` }]);
          expect(after[0]).toEqual({ role: 'user', content: `${summaryPrefix}NEW` });
          const rest = prefix.filter((event) => event.seq > to && event.type !== 'compaction');
          expect(after.slice(1)).toEqual(project(rest, options).messages);
          expect(after.length).toBeLessThanOrEqual(before.length);
          seen.paired += expectPaired(after, true);
        }
      }),
      { numRuns: 300 },
    );
    // The generated logs give the planner work, with tool calls in the parts it keeps.
    expect(seen.planned).toBeGreaterThan(100);
    expect(seen.paired).toBeGreaterThan(0);
  });
});

describe('repair (properties)', () => {
  it('pairs every call exactly once, closes every step and turn, and is idempotent', () => {
    const repairedOutcomes = { unknown: 0, not_started: 0 };
    fc.assert(
      fc.property(withCut, ({ cut }) => {
        const { appended } = repair(cut, new SimulatedClock(7));
        const repaired = [...cut, ...appended];
        validateSequence(repaired);
        const calls = new Map<string, number>();
        const results = new Map<string, number>();
        const started = new Set<string>();
        let openTurns = 0;
        let openSteps = 0;
        for (const event of repaired) {
          if (isEvent(event, 'assistant.message') && !event.data.interrupted) {
            for (const call of event.data.toolCalls) results.set(keyOf(event, call.id), 0);
          }
          if (isEvent(event, 'tool.call')) {
            calls.set(keyOf(event, event.data.callId), (calls.get(keyOf(event, event.data.callId)) ?? 0) + 1);
          }
          if (isEvent(event, 'tool.started')) started.add(keyOf(event, event.data.callId));
          if (isEvent(event, 'tool.result')) {
            const key = keyOf(event, event.data.callId);
            results.set(key, (results.get(key) ?? 0) + 1);
            if (appended.includes(event)) {
              const outcome = started.has(key) ? 'unknown' : 'not_started';
              expect(event.data.outcome).toBe(outcome);
              repairedOutcomes[outcome]++;
            }
          }
          if (event.type === 'turn.start') openTurns++;
          if (event.type === 'turn.end') openTurns--;
          if (event.type === 'step.start') openSteps++;
          if (event.type === 'step.end') openSteps--;
        }
        expect([...results.values()].every((count) => count === 1)).toBe(true);
        expect([...calls.keys()].sort()).toEqual([...results.keys()].sort());
        expect([...calls.values()].every((count) => count === 1)).toBe(true);
        expect({ openTurns, openSteps }).toEqual({ openTurns: 0, openSteps: 0 });
        expect(repair(repaired, new SimulatedClock(8))).toEqual({ appended: [], notes: [] });
        expectPaired(project(repaired, options).messages, true);
      }),
      // A cut between a call's start and its result is rare; enough runs make sure some land there.
      { numRuns: 500 },
    );
    // The cuts leave calls open both before and after they started, so both repaired outcomes are checked.
    expect(repairedOutcomes.unknown).toBeGreaterThan(0);
    expect(repairedOutcomes.not_started).toBeGreaterThan(0);
  });

  it('appends nothing to a complete log', () => {
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        expect(repair(buildLog(plan), new SimulatedClock(0))).toEqual({ appended: [], notes: [] });
      }),
    );
  });
});
