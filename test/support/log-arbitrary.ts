// A fast-check generator of valid session logs: turns, steps, tool calls with results in random order,
// interrupted steps, repeated call ids and compactions (after a turn, from any turn start; and before a
// step, where the runtime's planner puts them). Shared by the projection property tests.
import fc from 'fast-check';
import { addUsage, emptyUsage, type ToolCallRequest } from '../../src/providers/types.ts';
import { planCompaction } from '../../src/session/compaction-plan.ts';
import type { LogEvent, LogEventData, LogEventType } from '../../src/session/types.ts';

type Outcome = 'ok' | 'error' | 'denied' | 'timeout';
type StepPlan = {
  steer: string[];
  calls: Outcome[];
  resultOrder: number[];
  interrupted: boolean;
  /** Ask the planner for a compaction before this step, as a turn does when the window is full. */
  compactBefore: boolean;
};
type TurnPlan = { prompt: string; steps: StepPlan[]; compactFrom: number | null };
type LogPlan = { turns: TurnPlan[]; repeatIds: boolean; keepRecentTurns: number };

const stepArbitrary: fc.Arbitrary<StepPlan> = fc
  .record({
    steer: fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
    calls: fc.array(fc.constantFrom<Outcome>('ok', 'error', 'denied', 'timeout'), { maxLength: 3 }),
    interrupted: fc.boolean(),
    compactBefore: fc.boolean(),
  })
  .chain((step) =>
    fc
      .shuffledSubarray(
        step.calls.map((_, index) => index),
        { minLength: step.calls.length, maxLength: step.calls.length },
      )
      .map((resultOrder) => ({ ...step, resultOrder })),
  );

export const planArbitrary: fc.Arbitrary<LogPlan> = fc.record({
  turns: fc.array(
    fc.record({
      prompt: fc.string({ maxLength: 6 }),
      steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 3 }),
      compactFrom: fc.option(fc.nat(), { freq: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  repeatIds: fc.boolean(),
  keepRecentTurns: fc.integer({ min: 1, max: 3 }),
});

/** Turns a plan into the log the runtime would write: every call settled, every step and turn closed. */
export function buildLog(plan: LogPlan): LogEvent[] {
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
      const planned = stepPlan.compactBefore ? planCompaction(events, plan) : undefined;
      if (planned) {
        const summary = `before ${turn}.${stepIndex + 1}`;
        add('compaction', { ...planned, summary, tokensBefore: 900, trigger: 'auto' }, at);
      }
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
      add(
        'compaction',
        {
          replaces: [from, events.length - 1],
          summary: `up to turn ${turn}`,
          tokensBefore: 1000,
          trigger: 'auto' as const,
        },
        { turn },
      );
    }
  });
  return events;
}
