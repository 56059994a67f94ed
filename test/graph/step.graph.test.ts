// Graph paths of the step chart, each driven through the real runtime: streaming, answers with and
// without tool calls, retryable and fatal model errors, the retry timer, a cancel in every state, a step
// that only compacts (as `agent.compact()` starts one) and the compaction after a `context_overflow`.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { defaultRetryPolicy, retryDelay } from '../../src/machines/retry-policy.ts';
import { type StepEvent, type StepInput, stepMachine, stepOutput } from '../../src/machines/step.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import { settle } from '../support/controllable.ts';
import {
  actorAt,
  createHarness,
  currentRequest,
  disposeAndCheck,
  expectResultsInModelOrder,
  type Harness,
  requestEnded,
  startRun,
} from './support/driver.ts';
import { HoldingTool } from './support/holding-tool.ts';
import {
  describeEvent,
  eventsOf,
  expectedMessages,
  finished,
  setupOf,
  streamedSample,
} from './support/step-paths.ts';

type StepSnapshot = SnapshotFrom<typeof stepMachine>;

const maxAttempts = 3;
const agentId = 'a';
const call = { id: 'c1', name: 'probe', input: { value: '1' } };
const overloaded = { kind: 'overloaded' as const, message: 'test overloaded', retryable: true };
const auth = { kind: 'auth' as const, message: 'test auth', retryable: false };
const overflow = { kind: 'context_overflow' as const, message: 'test context_overflow', retryable: false };
const summary = { replaces: [1, 1] as [number, number], summary: 'S', tokensBefore: 1, usage: emptyUsage };

const input: StepInput = {
  agentKey: `agent:${agentId}`,
  turn: 1,
  model: 'gate-model',
  toolNames: ['probe'],
  systemHash: 'hash',
  retry: { ...defaultRetryPolicy, maxAttempts },
  maxParallelTools: 10,
  jitterKey: agentId,
  compactOnOverflow: true,
};

/** The catalogue: what can happen in each state, with sample payloads. */
function events(snapshot: StepSnapshot): StepEvent[] {
  const { context } = snapshot;
  // One step per path: begun once, over when the actor is back in idle.
  if (snapshot.matches('idle')) {
    if (context.step > 0) return [];
    return [
      { type: 'step.begin', step: 1 },
      { type: 'step.begin', step: 1, compaction: { trigger: 'manual' } },
    ];
  }
  if (snapshot.matches('requesting') && context.compacting) {
    // The planner decides before the first request; once one was made, a retry plans the same range.
    const firstTry = context.kind === 'compaction' ? context.attempt === 1 : context.retryInMs === undefined;
    return [
      { type: 'compaction.done', ...summary },
      ...(firstTry ? [{ type: 'compaction.skipped' } as const] : []),
      { type: 'model.error', error: overloaded },
      { type: 'model.error', error: overflow },
      { type: 'step.cancel' },
    ];
  }
  if (snapshot.matches('requesting')) {
    const done = {
      type: 'model.done' as const,
      text: context.streamed ? streamedSample : '',
      usage: emptyUsage,
    };
    return [
      ...(context.streamed ? [] : [{ type: 'model.streaming' } as const]),
      { ...done, toolCalls: [], stopReason: 'end_turn' },
      { ...done, toolCalls: [call], stopReason: 'tool_use' },
      { type: 'model.error', error: overloaded },
      { type: 'model.error', error: auth },
      { type: 'model.error', error: overflow },
      { type: 'step.cancel' },
    ];
  }
  // The model call hands over what it streamed as soon as it is asked.
  if (snapshot.matches('interrupting')) return [{ type: 'model.interrupted', text: streamedSample }];
  if (snapshot.matches('waitingToRetry')) return [{ type: 'retry.due' }, { type: 'step.cancel' }];
  if (snapshot.matches('executingTools')) {
    const batchDone: StepEvent = {
      type: 'batch.done',
      output: { results: 1, unknownTools: 0, calls: 1 },
    };
    return context.canceled ? [batchDone] : [batchDone, { type: 'step.cancel' }];
  }
  return [];
}

/** Bounded key: value, attempt, whether text streamed, cancel, tool calls, error kind, and outcome. */
function serializeState(snapshot: StepSnapshot): string {
  const { context } = snapshot;
  return JSON.stringify([
    snapshot.value,
    context.attempt,
    context.streamed,
    context.canceled,
    context.toolCalls.length,
    // Overflows that cannot be recovered from differ only by the cause in their message.
    context.error?.message ?? '',
    // Tells a cancel while waiting to retry from one before any error.
    context.retryInMs !== undefined,
    finished(snapshot) ? stepOutput(context).outcome : '',
    context.kind,
    context.compacting?.trigger ?? '',
    context.overflow !== undefined,
  ]);
}

const paths = getShortestPaths(stepMachine, {
  input,
  events,
  serializeState: serializeState as never,
  limit: 10_000,
});

/** Translates one abstract event into the real stimulus. */
async function drive(harness: Harness, probe: HoldingTool, event: StepEvent): Promise<void> {
  switch (event.type) {
    case 'model.streaming':
      (await currentRequest(harness)).delta(streamedSample);
      break;
    case 'model.interrupted':
      // The runtime's model call answered the cancel by itself, before the cancel settled.
      break;
    case 'model.done': {
      const request = await currentRequest(harness);
      for (const toolCall of event.toolCalls) request.toolCall(toolCall.id, toolCall.name, toolCall.input);
      request.done(event.stopReason === 'tool_use' ? 'tool_use' : 'end_turn');
      requestEnded(harness);
      break;
    }
    case 'compaction.done': {
      const request = await currentRequest(harness);
      expect(isCompactionRequest(request.request)).toBe(true);
      request.answer('Summary.');
      requestEnded(harness);
      break;
    }
    case 'model.error':
      (await currentRequest(harness)).fail(event.error.kind);
      requestEnded(harness);
      break;
    case 'retry.due':
      expect(harness.clock.runNext()).toBe(true);
      break;
    case 'step.cancel':
      harness.agent.cancel();
      break;
    case 'batch.done':
      probe.finish(call.id);
      break;
    case 'step.begin':
      // A step begins as its run starts (startRun); a compaction step as `agent.compact()` asks for one.
      if (event.compaction) void harness.agent.compact();
      else await startRun(harness);
      break;
    case 'compaction.skipped':
      // The planner found nothing: the runtime answered at once, with no model request.
      break;
  }
  await settle();
}

/** Checks the real actor and log against one state of the path. */
function expectMatches(
  harness: Harness,
  state: StepSnapshot,
  expected: { attempts: [number, number | undefined][]; turn: number; requestsBefore: number },
): void {
  const log = harness.agent.log();
  const ofStep = (type: string) =>
    log.filter((event) => event.type === type && event.turn === expected.turn && event.step === 1);
  expectResultsInModelOrder(log);
  expect(ofStep('assistant.attempt').map((event) => [event.data.attempt, event.data.retryInMs])).toEqual(
    expected.attempts,
  );
  const compactions = ofStep('compaction').map((event) => event.data.trigger);
  expect(compactions).toEqual(state.context.compaction ? [state.context.compaction.trigger] : []);
  const ended = ofStep('step.end').length;
  if (!finished(state)) {
    expect(ended).toBe(0);
    expect(actorAt(harness, ['turn', 'step'])?.value).toEqual(state.value);
    expect(harness.model.requests).toHaveLength(expected.requestsBefore + state.context.attempt);
    return;
  }
  expect(ended).toBe(state.context.kind === 'step' ? 1 : 0);
  const outcome = stepOutput(state.context).outcome;
  const turnEnd = log.find((event) => event.type === 'turn.end' && event.turn === expected.turn);
  if (outcome === 'tools') {
    // The turn goes on: the next step asks the model again.
    expect(turnEnd).toBeUndefined();
    expect(actorAt(harness, ['turn', 'step'])?.value).toBe('requesting');
    return;
  }
  const reasons: Partial<Record<typeof outcome, string>> = {
    final: 'completed',
    canceled: 'canceled',
    model_error: 'model_error',
    // A turn that only compacts has no step to take afterwards.
    compacted: 'completed',
    nothing_to_compact: 'completed',
  };
  // An outcome without a reason here is a path this check does not know: it fails rather than pass.
  const reason = reasons[outcome];
  expect(reason, `the turn.end reason for step outcome ${outcome}`).toBeDefined();
  expect(turnEnd?.data.reason).toBe(reason);
  if (outcome === 'model_error') expect(turnEnd?.data.error).toEqual(state.context.error);
}

describe('step graph paths', () => {
  it('has the expected number of shortest paths', () => {
    // 57 before compaction (56 states of one step, plus the idle actor before `step.begin`); 91 more for
    // steps that only compact and for the compaction after an overflow; 6 more since a cancel after
    // streamed text waits in `interrupting` for the model call to hand the text over (one per attempt
    // that can stream: first, after one or two retries, after an overflow's compaction, and both).
    expect(paths).toHaveLength(154);
  });

  it.each(paths.map((path) => [eventsOf(path).map(describeEvent).join(' → ') || '(start)', path]))(
    '%s',
    async (_name, path) => {
      const probe = new HoldingTool('probe');
      const harness = await createHarness({
        tools: [probe],
        agentId,
        limits: { maxAttempts },
        compaction: { keepRecentTurns: 1 },
      });
      const { prepared, turn } = setupOf(path);
      for (const prep of prepared ? ['one', 'two'] : []) {
        await startRun(harness, `prepare ${prep}`);
        (await currentRequest(harness)).answer(`Prepared ${prep}.`);
        requestEnded(harness);
        await harness.run;
        await harness.agent.whenIdle();
      }
      const requestsBefore = harness.nextRequest;
      // Each failed request: [attempt, retryInMs], the delay absent for the one the step gives up after.
      const attempts: [number, number | undefined][] = [];
      const steps = path.steps.slice(1);
      for (const [index, step] of steps.entries()) {
        const event = step.event as StepEvent;
        const state = step.state as StepSnapshot;
        if (event.type === 'model.error' && state.matches('waitingToRetry')) {
          const attempt = state.context.attempt;
          attempts.push([attempt, retryDelay(event.error, attempt, input.retry!, `${agentId}:${turn}:1`)!]);
        }
        if (
          event.type === 'model.error' &&
          state.context.compacting?.trigger === 'overflow' &&
          state.matches('requesting')
        )
          attempts.push([state.context.attempt - 1, 0]);
        // The step passes through done to idle at once.
        if (event.type === 'model.error' && state.matches('idle') && state.context.error !== undefined)
          attempts.push([state.context.attempt, undefined]);
        await drive(harness, probe, event);
        // When the planner finds nothing the runtime moves on at once: it is checked after the skip.
        const next = steps[index + 1]?.event as StepEvent | undefined;
        // Nor is `interrupting`: the model call answers at once, so the real step is past it already.
        if (next?.type !== 'compaction.skipped' && !state.matches('interrupting'))
          expectMatches(harness, state, { attempts, turn, requestsBefore });
      }
      const messages = harness.agent
        .log()
        .filter((event) => event.type === 'assistant.message' && event.turn === turn && event.step === 1)
        .map((event) => [event.data.text, event.data.interrupted === true]);
      expect(messages).toEqual(expectedMessages(path));
      await disposeAndCheck(harness);
    },
  );
});
