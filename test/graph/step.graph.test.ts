// Graph paths of the step chart, each driven through the real runtime: streaming, answers with and
// without tool calls, retryable and fatal model errors, the retry timer, a cancel in every state, a step
// that only compacts (as `agent.compact()` starts one) and the compaction after a `context_overflow`.
// The catalogue is the chart's own (catalogues/step.ts); each path runs through an events table and a
// states table (support/model.ts).
import { describe, expect, it } from 'vitest';
import { defaultRetryPolicy, retryDelay } from '../../src/machines/retry-policy.ts';
import { stepMachine, stepOutput } from '../../src/machines/step.ts';
import { isCompactionRequest } from '../../src/session/compaction-request.ts';
import {
  describeStepEvent,
  finished,
  probeCall,
  type StepSnapshot,
  serializeStep,
  stepEvents,
  stepInput,
  streamedSample,
} from './catalogues/step.ts';
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
import { chartModel, pathName } from './support/model.ts';
import { expectedMessages, setupOf } from './support/step-paths.ts';
import { settled } from './support/stimuli.ts';

const maxAttempts = 3;
const agentId = 'a';
const input = stepInput({
  systemHash: 'hash',
  retry: { ...defaultRetryPolicy, maxAttempts },
  compactOnOverflow: true,
});

const graph = chartModel(stepMachine, { input, events: stepEvents, serializeState: serializeStep });
const paths = graph.shortestPaths();

/** Each failed request of a path: [attempt, retryInMs], the delay absent for the one the step gives up after. */
type Attempts = [number, number | undefined][];

/** The real stimulus for each event of the catalogue, each followed by the runtime settling. */
function stimuli(harness: Harness, probe: HoldingTool, attempts: Attempts, turn: number) {
  return settled<typeof stepMachine>({
    // A step begins as its run starts (startRun); a compaction step as `agent.compact()` asks for one.
    'step.begin': async (event) => {
      if (event.compaction) void harness.agent.compact();
      else await startRun(harness);
    },
    'model.streaming': async () => void (await currentRequest(harness)).delta(streamedSample),
    // The runtime's model call answered the cancel by itself, before the cancel settled.
    'model.interrupted': () => undefined,
    'model.done': async (event) => {
      const request = await currentRequest(harness);
      for (const toolCall of event.toolCalls) request.toolCall(toolCall.id, toolCall.name, toolCall.input);
      request.done(event.stopReason === 'tool_use' ? 'tool_use' : 'end_turn');
      requestEnded(harness);
    },
    'compaction.done': async () => {
      const request = await currentRequest(harness);
      expect(isCompactionRequest(request.request)).toBe(true);
      request.answer('Summary.');
      requestEnded(harness);
    },
    // The planner found nothing: the runtime answered at once, with no model request.
    'compaction.skipped': () => undefined,
    'model.error': async (event, { step: { state } }) => {
      const { attempt } = state.context;
      if (state.matches('waitingToRetry'))
        attempts.push([attempt, retryDelay(event.error, attempt, input.retry!, `${agentId}:${turn}:1`)!]);
      if (state.context.compacting?.trigger === 'overflow' && state.matches('requesting'))
        attempts.push([attempt - 1, 0]);
      // The step passes through done to idle at once.
      if (state.matches('idle') && state.context.error !== undefined) attempts.push([attempt, undefined]);
      (await currentRequest(harness)).fail(event.error.kind);
      requestEnded(harness);
    },
    'retry.due': () => expect(harness.clock.runNext()).toBe(true),
    'step.cancel': () => harness.agent.cancel(),
    'batch.done': () => probe.finish(probeCall.id),
  });
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

  it.each(paths.map((path) => [pathName(path, describeStepEvent, { join: ' → ', empty: '(start)' }), path]))(
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
      const attempts: Attempts = [];
      await graph.run(path, {
        events: stimuli(harness, probe, attempts, turn),
        states: {
          // The model call answers the cancel at once, so the real step is past `interrupting` already.
          interrupting: () => undefined,
          // When the planner finds nothing the runtime moves on at once: it is checked after the skip.
          '*': (state, { index, steps }) => {
            if (steps[index + 1]?.event.type !== 'compaction.skipped')
              expectMatches(harness, state, { attempts, turn, requestsBefore });
          },
        },
      });
      const messages = harness.agent
        .log()
        .filter((event) => event.type === 'assistant.message' && event.turn === turn && event.step === 1)
        .map((event) => [event.data.text, event.data.interrupted === true]);
      expect(messages).toEqual(expectedMessages(path));
      await disposeAndCheck(harness);
    },
  );
});
