import { assign, spawnChild } from 'xstate';
import { cannotShrink } from './compaction-types.ts';
import { defaultRetryPolicy } from './retry-policy.ts';
import { freshStep, stepStartEntry } from './step-entries.ts';
import { stepSetup as chart } from './step-setup.ts';
import type { StepContext } from './step-types.ts';
import { waitState } from './wait-state.ts';

export { stepOutput } from './step-entries.ts';
export type {
  CompactionDoneEvent,
  ModelCallCommand,
  ModelDoneEvent,
  StepContext,
  StepDoneEvent,
  StepEvent,
  StepInput,
  StepOutcome,
  StepOutput,
  StepResumeEvent,
  StepSettings,
} from './step-types.ts';

/**
 * The retry sub-flow, in the order it runs: a failed attempt (`recovering`) goes to the `requestError`
 * hooks when there are any (`hookingError`), which may override the retry policy; then the step waits on a
 * timer actor (`waitingToRetry`) and requests again, or gives up. The states stay siblings of the others
 * (the drawn chart and the state values the inspector shows are those of a flat step); this groups them.
 */
const retryStates = {
  recovering: chart.createStateConfig({
    always: [
      { guard: 'requestErrorHooksDue', target: 'hookingError' },
      { guard: 'mayRetry', target: 'waitingToRetry', actions: 'logRetry' },
      { target: 'done', actions: 'logGiveUp' },
    ],
  }),
  // The `requestError` hooks may override the retry policy's decision: retry after N ms, or give up.
  hookingError: waitState(chart, {
    src: 'requestErrorHook',
    id: 'hook',
    input: ({ context: { agentKey, turn, step, attempt, error, retryInMs, retry } }) => ({
      agentKey,
      turn,
      step,
      attempt,
      error: error!,
      retryInMs,
      maxAttempts: retry.maxAttempts,
    }),
    on: {
      'hook.requestError': [
        { guard: 'hookRetries', target: 'waitingToRetry', actions: ['logHookDecisions', 'retryAsHooked'] },
        { target: 'done', actions: ['logHookDecisions', 'logGiveUp'] },
      ],
      'step.cancel': { target: 'done', actions: 'cancelRetry' },
    },
  }),
  waitingToRetry: waitState(chart, {
    src: 'retryTimer',
    id: 'retryTimer',
    input: ({ context }) => ({ delayMs: context.retryInMs! }),
    on: {
      'retry.due': { target: 'requesting', actions: 'nextAttempt' },
      'step.cancel': { target: 'done', actions: 'cancelRetry' },
    },
  }),
};

/**
 * Every field of the step's context. The context is built on a copy of this, so that making one only
 * overwrites fields: a literal that spreads an object first and then adds fields it lacks takes V8's slow
 * path (Node 20: ~49 µs per turn), and the copy keeps the shape XState's copies of it stay fast with.
 */
const contextFields: { [Field in keyof Required<StepContext>]: undefined } = {
  agentKey: undefined,
  turn: undefined,
  model: undefined,
  toolNames: undefined,
  systemHash: undefined,
  retry: undefined,
  maxParallelTools: undefined,
  jitterKey: undefined,
  compactOnOverflow: undefined,
  hooks: undefined,
  step: undefined,
  attempt: undefined,
  streamed: undefined,
  toolCalls: undefined,
  usage: undefined,
  stopReason: undefined,
  error: undefined,
  retryInMs: undefined,
  unknownTools: undefined,
  canceled: undefined,
  kind: undefined,
  compacting: undefined,
  overflow: undefined,
  compaction: undefined,
  usedTokens: undefined,
};

/**
 * One model request and the tools it asks for, for every step of a turn: the actor lives as long as its
 * turn and waits in `idle` between steps, so a step costs events, not actor creations (DESIGN §1). Its
 * model-call actor and tool batch live as long, and are told what to do by events. Retrying is a state:
 * a failed attempt is logged, a timer actor (on the injected clock) says when to try again, and a cancel
 * while streaming keeps the text that consumers already saw as an interrupted assistant message.
 *
 * The same states serve a compaction: `step.begin{compaction}` asks the model call for a summary instead
 * of the next answer (same actor, same retry policy, no `step.start`), and a step whose request the
 * provider refuses as too long (`context_overflow`) logs the attempt, compacts once and tries again.
 *
 * The flow: `idle` → `preparing` → (`hookingRequest`) → `requesting` → (`interrupting` | the retry states
 * → `requesting`) → (`executingTools`) → `done` → `idle`.
 */
export const stepMachine = chart.createMachine({
  id: 'step',
  // Built on a copy of every field (`contextFields`): only overwrites, no field added.
  context: ({ input }) => ({
    ...contextFields,
    ...input,
    ...freshStep(0),
    retry: input.retry ?? defaultRetryPolicy,
  }),
  // Spawned once per turn, before any step: the model-call actor and the tool batch wait for work.
  entry: [
    spawnChild('modelCall', { id: 'model', input: ({ context }) => ({ agentKey: context.agentKey }) }),
    spawnChild('toolBatch', {
      id: 'batch',
      input: ({ context }) => ({
        agentKey: context.agentKey,
        turn: context.turn,
        maxParallel: context.maxParallelTools,
        hooks: context.hooks,
      }),
    }),
  ],
  initial: 'idle',
  states: {
    idle: {
      on: {
        'step.begin': [
          { guard: 'beginsCompaction', target: 'requesting', actions: 'begin' },
          { target: 'preparing', actions: 'begin' },
        ],
        'step.resume': { target: 'executingTools', actions: 'resumeBatch' },
      },
    },
    preparing: {
      entry: { type: 'log', params: ({ context }) => stepStartEntry(context) },
      always: [{ guard: 'requestHooksDue', target: 'hookingRequest' }, { target: 'requesting' }],
    },
    // The `request` hooks may change the system prompt or narrow the tools of this step's request; their
    // decisions are logged here, and the model call reads the change back from the log.
    hookingRequest: waitState(chart, {
      src: 'requestHook',
      id: 'hook',
      input: ({ context: { agentKey, turn, step } }) => ({ agentKey, turn, step }),
      on: {
        'hook.request': { target: 'requesting', actions: 'logHookDecisions' },
        'step.cancel': { target: 'done', actions: 'markCanceled' },
      },
    }),
    requesting: {
      entry: 'requestModel',
      on: {
        'model.streaming': { actions: 'markStreamed' },
        'model.done': [
          {
            target: 'executingTools',
            guard: 'answerHasToolCalls',
            actions: ['recordResponse', 'logResponse', 'beginBatch'],
          },
          { target: 'done', actions: ['recordResponse', 'logResponse'] },
        ],
        'compaction.done': [
          {
            guard: 'compactingForOverflow',
            target: 'requesting',
            reenter: true,
            actions: ['recordCompaction', 'resumeAfterCompaction'],
          },
          { target: 'done', actions: 'recordCompaction' },
        ],
        'compaction.skipped': [
          {
            guard: 'compactingForOverflow',
            target: 'done',
            actions: assign({ error: ({ context }) => cannotShrink(context.overflow!, 'nothing_older') }),
          },
          { target: 'done' },
        ],
        'model.error': [
          {
            guard: 'overflowToCompact',
            target: 'requesting',
            reenter: true,
            actions: 'compactAfterOverflow',
          },
          {
            guard: 'summaryOverflowed',
            target: 'done',
            actions: [
              'logLastAttempt',
              assign({ error: ({ event }) => cannotShrink(event.error, 'summary_too_long') }),
            ],
          },
          {
            guard: 'overflowedAgain',
            target: 'done',
            actions: [
              'logLastAttempt',
              assign({ error: ({ event }) => cannotShrink(event.error, 'still_too_long') }),
            ],
          },
          { target: 'recovering', actions: 'planRetry' },
        ],
        // The model call reports nothing after an abort, so no stale event can reach a later attempt.
        'step.cancel': [
          {
            guard: 'hasStreamedText',
            target: 'interrupting',
            actions: ['markCanceled', 'interruptModelCall'],
          },
          { target: 'done', actions: ['abortModelCall', 'markCanceled'] },
        ],
      },
    },
    // Text reached consumers before the cancel: the model call stops and hands it over, to be logged.
    interrupting: {
      on: { 'model.interrupted': { target: 'done', actions: 'logInterrupted' } },
    },
    ...retryStates,
    // The batch was begun (`model.done`) or resumed (`step.resume`) by the transition that led here.
    executingTools: {
      on: {
        'batch.done': { target: 'done', actions: 'recordBatch' },
        // The batch aborts what runs and still commits a result for every call before it reports done.
        'step.cancel': { actions: ['markCanceled', 'cancelBatch'] },
      },
    },
    // The step is over: logged, reported to the turn, and the actor waits for the next `step.begin`.
    done: {
      entry: 'endStep',
      always: 'idle',
    },
  },
});
