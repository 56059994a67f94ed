import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, type ModelMessage, type ToolCallRequest } from '../../src/providers/types.ts';
import { SimulatedClock } from '../../src/runtime/clock.ts';
import { project } from '../../src/session/projection.ts';
import { repair } from '../../src/session/repair.ts';
import { validateSequence } from '../../src/session/schema.ts';
import { isEvent, type LogEvent, type LogEventData, type LogEventType } from '../../src/session/types.ts';

type Outcome = 'ok' | 'error' | 'denied' | 'timeout';
type StepPlan = { steer: string[]; calls: Outcome[]; resultOrder: number[]; interrupted: boolean };
type TurnPlan = { prompt: string; steps: StepPlan[]; compactFrom: number | null };
type LogPlan = { turns: TurnPlan[]; repeatIds: boolean };

const stepArbitrary: fc.Arbitrary<StepPlan> = fc
  .record({
    steer: fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
    calls: fc.array(fc.constantFrom<Outcome>('ok', 'error', 'denied', 'timeout'), { maxLength: 3 }),
    interrupted: fc.boolean(),
  })
  .chain((step) =>
    fc
      .shuffledSubarray(
        step.calls.map((_, index) => index),
        { minLength: step.calls.length, maxLength: step.calls.length },
      )
      .map((resultOrder) => ({ ...step, resultOrder })),
  );

const planArbitrary: fc.Arbitrary<LogPlan> = fc.record({
  turns: fc.array(
    fc.record({
      prompt: fc.string({ maxLength: 6 }),
      steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 3 }),
      compactFrom: fc.option(fc.nat(), { freq: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  repeatIds: fc.boolean(),
});

/** Turns a plan into the log the runtime would write: every call settled, every step and turn closed. */
function buildLog(plan: LogPlan): LogEvent[] {
  const events: LogEvent[] = [];
  const add = <K extends LogEventType>(
    type: K,
    data: LogEventData[K],
    at: { turn?: number; step?: number } = {},
  ) => {
    events.push({ v: 1, seq: events.length, ts: events.length * 10, type, ...at, data });
  };
  add('session.start', { agentId: 'prop', config: {} });
  const turnStarts: number[] = [];
  let unique = 0;
  plan.turns.forEach((turnPlan, turnIndex) => {
    const turn = turnIndex + 1;
    turnStarts.push(events.length);
    add('turn.start', {}, { turn });
    add('user.message', { channel: 'followup', content: turnPlan.prompt }, { turn });
    let usage = emptyUsage;
    let reason: 'completed' | 'canceled' = 'completed';
    for (const [stepIndex, stepPlan] of turnPlan.steps.entries()) {
      const at = { turn, step: stepIndex + 1 };
      add('step.start', { model: 'm', toolNames: ['t'], systemHash: 'h' }, at);
      for (const text of stepPlan.steer) add('user.message', { channel: 'steer', content: text }, at);
      const calls: ToolCallRequest[] = stepPlan.calls.map((_, index) => ({
        id: plan.repeatIds ? `call_${index}` : `c${unique++}`,
        name: `tool${index}`,
        input: { index },
      }));
      const messageUsage = { ...emptyUsage, inputTokens: 1, outputTokens: calls.length };
      usage = addUsage(usage, messageUsage);
      const base = { text: `s${stepIndex}`, toolCalls: calls, usage: messageUsage };
      if (stepPlan.interrupted) {
        add('assistant.message', { ...base, stopReason: 'interrupted', interrupted: true }, at);
        add('step.end', { toolResults: 0 }, at);
        reason = 'canceled';
        break;
      }
      add('assistant.message', { ...base, stopReason: calls.length ? 'tool_use' : 'end_turn' }, at);
      for (const call of calls) add('tool.call', { callId: call.id, name: call.name, input: call.input }, at);
      calls.forEach((call, index) => {
        if (stepPlan.calls[index] !== 'denied') add('tool.started', { callId: call.id }, at);
      });
      for (const index of stepPlan.resultOrder) {
        const outcome = stepPlan.calls[index] ?? 'ok';
        add('tool.result', { callId: calls[index]?.id ?? '', outcome, content: `r${index}` }, at);
      }
      add('step.end', { toolResults: calls.length }, at);
    }
    add('turn.end', { reason, usage }, { turn });
    if (turnPlan.compactFrom !== null) {
      const from = turnStarts[turnPlan.compactFrom % turnStarts.length] ?? 1;
      add('compaction', { replaces: [from, events.length - 1], summary: `up to turn ${turn}` }, { turn });
    }
  });
  return events;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Checks that tool messages only ever follow their own assistant message, in its toolCalls order.
 * With `complete`, every call must have its result.
 */
function expectPaired(messages: readonly ModelMessage[], complete: boolean): void {
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
  }
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
          expectPaired(first.messages, complete);
        }
      }),
    );
  });
});

describe('repair (properties)', () => {
  it('pairs every call exactly once, closes every step and turn, and is idempotent', () => {
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
              expect(event.data.outcome).toBe(started.has(key) ? 'unknown' : 'not_started');
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
    );
  });

  it('appends nothing to a complete log', () => {
    fc.assert(
      fc.property(planArbitrary, (plan) => {
        expect(repair(buildLog(plan), new SimulatedClock(0))).toEqual({ appended: [], notes: [] });
      }),
    );
  });
});
