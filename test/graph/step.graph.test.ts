// Graph paths of the step chart, each driven through the real runtime: streaming, answers with and
// without tool calls, retryable and fatal model errors, the retry timer, and a cancel in every state.
import { describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { defaultRetryPolicy, retryDelay } from '../../src/machines/retry-policy.ts';
import { type StepEvent, type StepInput, stepMachine, stepOutput } from '../../src/machines/step.ts';
import { emptyUsage } from '../../src/providers/types.ts';
import type { LogEvent } from '../../src/session/types.ts';
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

type StepSnapshot = SnapshotFrom<typeof stepMachine>;

const maxAttempts = 3;
const agentId = 'a';
const call = { id: 'c1', name: 'probe', input: { value: '1' } };
const overloaded = { kind: 'overloaded' as const, message: 'test overloaded', retryable: true };
const auth = { kind: 'auth' as const, message: 'test auth', retryable: false };

const input: StepInput = {
  agentKey: `agent:${agentId}`,
  turn: 1,
  model: 'gate-model',
  toolNames: ['probe'],
  systemHash: 'hash',
  retry: { ...defaultRetryPolicy, maxAttempts },
  maxParallelTools: 10,
  jitterKey: agentId,
};

/** The catalogue: what can happen in each state, with sample payloads. */
function events(snapshot: StepSnapshot): StepEvent[] {
  const { context } = snapshot;
  // One step per path: begun once, over when the actor is back in idle.
  if (snapshot.matches('idle')) return context.step === 0 ? [{ type: 'step.begin', step: 1 }] : [];
  if (snapshot.matches('requesting')) {
    const done = { type: 'model.done' as const, text: context.streamedText, usage: emptyUsage };
    return [
      { type: 'model.delta', text: 'Hi' },
      { ...done, toolCalls: [], stopReason: 'end_turn' },
      { ...done, toolCalls: [call], stopReason: 'tool_use' },
      { type: 'model.error', error: overloaded },
      { type: 'model.error', error: auth },
      { type: 'step.cancel' },
    ];
  }
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
    context.streamedText !== '',
    context.canceled,
    context.toolCalls.length,
    context.error?.kind ?? '',
    // Tells a cancel while waiting to retry from one before any error.
    context.retryInMs !== undefined,
    finished(snapshot) ? stepOutput(context).outcome : '',
  ]);
}

/** The step has ended and reported (its actor waits in idle for the next one). */
const finished = (snapshot: StepSnapshot) => snapshot.matches('idle') && snapshot.context.step > 0;

const paths = getShortestPaths(stepMachine, {
  input,
  events,
  serializeState: serializeState as never,
  limit: 10_000,
});

function describeEvent(event: StepEvent): string {
  if (event.type === 'model.error') return `model.error(${event.error.kind})`;
  if (event.type === 'model.done') return event.toolCalls.length > 0 ? 'model.done(tools)' : 'model.done';
  return event.type;
}

/** Translates one abstract event into the real stimulus. */
async function drive(harness: Harness, probe: HoldingTool, event: StepEvent): Promise<void> {
  switch (event.type) {
    case 'model.delta':
      (await currentRequest(harness)).delta(event.text);
      break;
    case 'model.done': {
      const request = await currentRequest(harness);
      for (const toolCall of event.toolCalls) request.toolCall(toolCall.id, toolCall.name, toolCall.input);
      request.done(event.stopReason === 'tool_use' ? 'tool_use' : 'end_turn');
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
      // The turn begins step 1 as the run starts (see startRun); nothing to do here.
      break;
  }
  await settle();
}

const ofStep = (log: readonly LogEvent[], type: string) =>
  log.filter((event) => event.type === type && event.turn === 1 && event.step === 1);

/** Checks the real actor and log against one state of the path. */
function expectMatches(harness: Harness, state: StepSnapshot, expectedAttempts: [number, number][]): void {
  const log = harness.agent.log();
  expectResultsInModelOrder(log);
  expect(ofStep(log, 'assistant.attempt').map((event) => [event.data.attempt, event.data.retryInMs])).toEqual(
    expectedAttempts,
  );
  const ended = ofStep(log, 'step.end').length;
  if (!finished(state)) {
    expect(ended).toBe(0);
    expect(actorAt(harness, ['turn', 'step'])?.value).toEqual(state.value);
    expect(harness.model.requests).toHaveLength(state.context.attempt);
    return;
  }
  expect(ended).toBe(1);
  const outcome = stepOutput(state.context).outcome;
  const turnEnd = log.find((event) => event.type === 'turn.end');
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
  };
  // An outcome without a reason here is a path this check does not know: it fails rather than pass.
  const reason = reasons[outcome];
  expect(reason, `the turn.end reason for step outcome ${outcome}`).toBeDefined();
  expect(turnEnd?.data.reason).toBe(reason);
  if (outcome === 'model_error')
    expect(turnEnd?.data.error).toMatchObject({ kind: state.context.error?.kind });
}

/** What the step's assistant messages must be at the end of the path: text and whether interrupted. */
function expectedMessages(path: { steps: { event: unknown; state: unknown }[] }): [string, boolean][] {
  const messages: [string, boolean][] = [];
  let text = '';
  for (const step of path.steps.slice(1)) {
    const event = step.event as StepEvent;
    const before = text;
    if (event.type === 'model.delta') text += event.text;
    if (event.type === 'model.done') messages.push([before, false]);
    if (event.type === 'model.error' || event.type === 'retry.due') text = '';
    const state = step.state as StepSnapshot;
    if (
      event.type === 'step.cancel' &&
      finished(state) &&
      before !== '' &&
      state.context.toolCalls.length === 0
    )
      messages.push([before, true]);
  }
  return messages;
}

describe('step graph paths', () => {
  it('has the expected number of shortest paths', () => {
    // 56 states of one step, plus the idle actor before `step.begin`.
    expect(paths).toHaveLength(57);
  });

  it.each(
    paths.map((path) => [
      path.steps
        .slice(1)
        .map((s) => describeEvent(s.event as StepEvent))
        .join(' → ') || '(start)',
      path,
    ]),
  )('%s', async (_name, path) => {
    const probe = new HoldingTool('probe');
    const harness = await createHarness({ tools: [probe], agentId, limits: { maxAttempts } });
    await startRun(harness);
    const attempts: [number, number][] = [];
    for (const step of path.steps.slice(1)) {
      const event = step.event as StepEvent;
      const state = step.state as StepSnapshot;
      if (event.type === 'model.error' && state.matches('waitingToRetry')) {
        const attempt = state.context.attempt;
        attempts.push([attempt, retryDelay(event.error, attempt, input.retry!, `${agentId}:1:1`)!]);
      }
      await drive(harness, probe, event);
      expectMatches(harness, state, attempts);
    }
    const messages = ofStep(harness.agent.log(), 'assistant.message').map((event) => [
      event.data.text,
      event.data.interrupted === true,
    ]);
    expect(messages).toEqual(expectedMessages(path));
    await disposeAndCheck(harness);
  });
});
