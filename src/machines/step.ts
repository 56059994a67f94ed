import {
  assertEvent,
  assign,
  enqueueActions,
  fromCallback,
  sendTo,
  setup,
  spawnChild,
  stopChild,
} from 'xstate';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import { addUsage } from '../providers/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { cannotShrink } from './compaction-types.ts';
import type { HookRequestErrorEvent } from './hook-events.ts';
import { logNothing } from './log-action.ts';
import { parentOf } from './parent.ts';
import { defaultRetryPolicy, retryDelay } from './retry-policy.ts';
import {
  attemptEntry,
  batchBegin,
  compactionEntry,
  freshStep,
  interruptedEntry,
  lastAttemptEntry,
  responseEntry,
  responseRecord,
  resumedStep,
  stepEndEntry,
  stepOutput,
  stepStartEntry,
} from './step-entries.ts';
import type { ModelCallCommand, StepContext, StepDoneEvent, StepEvent, StepInput } from './step-types.ts';
import { type BatchBeginEvent, toolBatchMachine } from './tool-batch.ts';

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

const isOverflow = (event: StepEvent) =>
  event.type === 'model.error' && event.error.kind === 'context_overflow';

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
 */
export const stepMachine = setup({
  types: {} as { context: StepContext; events: StepEvent; input: StepInput },
  actors: {
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    modelCall: fromCallback<ModelCallCommand, AgentKeyed>(() => {}),
    retryTimer: fromCallback<{ type: 'noop' }, { delayMs: number }>(() => {}),
    requestErrorHook: fromCallback<
      { type: 'noop' },
      AgentKeyed & {
        turn: number;
        step: number;
        attempt: number;
        error: ProviderErrorData;
        retryInMs: number | undefined;
        maxAttempts: number;
      }
    >(() => {}),
    requestHook: fromCallback<{ type: 'noop' }, AgentKeyed & { turn: number; step: number }>(() => {}),
    toolBatch: toolBatchMachine,
  },
  actions: {
    log: logNothing,
    /**
     * Logs what the `request` hooks decided (before the request they change) or the `requestError` hooks
     * (before the attempt entry that carries the delay).
     */
    logHookDecisions: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ['hook.request', 'hook.requestError']);
      for (const data of event.decisions)
        enqueue({
          type: 'log',
          params: { type: 'hook.decided', turn: context.turn, step: context.step, data },
        });
    }),
    begin: assign(({ event }) => {
      assertEvent(event, 'step.begin');
      return {
        ...freshStep(event.step),
        ...(event.compaction ? { kind: 'compaction' as const, compacting: event.compaction } : {}),
        ...(event.tools ?? {}),
      };
    }),
    recordResponse: assign(({ context, event }) => {
      assertEvent(event, 'model.done');
      return responseRecord(context, event);
    }),
    logResponse: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'model.done');
      enqueue({ type: 'log', params: responseEntry(context, event) });
    }),
    /** Logs the summary, then the step goes on with the request it was making (overflow) or ends. */
    recordCompaction: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'compaction.done');
      enqueue({ type: 'log', params: compactionEntry(context, event) });
      const { replaces, summary, tokensBefore } = event;
      const trigger = context.compacting?.trigger ?? 'auto';
      enqueue.assign({
        compaction: { replaces, summary, tokensBefore, trigger },
        usage: addUsage(context.usage, event.usage),
      });
    }),
    /** The overflowed attempt is logged; the step compacts at once, then asks again (next attempt). */
    compactAfterOverflow: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'model.error');
      enqueue({ type: 'log', params: attemptEntry({ ...context, error: event.error }, 0) });
      enqueue.assign({
        overflow: event.error,
        compacting: { trigger: 'overflow' },
        attempt: context.attempt + 1,
      });
    }),
    logLastAttempt: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'model.error');
      enqueue({ type: 'log', params: lastAttemptEntry(context, event.error) });
    }),
    resumeAfterCompaction: assign({ compacting: undefined, attempt: ({ context }) => context.attempt + 1 }),
    beginBatch: sendTo('batch', ({ context }): BatchBeginEvent => batchBegin(context)),
    markCanceled: assign({ canceled: true }),
    logInterrupted: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'model.interrupted');
      // Streamed text may end up empty (deltas of ''); nothing was said then.
      if (event.text !== '') enqueue({ type: 'log', params: interruptedEntry(context, event.text) });
    }),
    abortModelCall: sendTo('model', { type: 'model.abort' }),
  },
  guards: {
    beginsCompaction: ({ event }) => event.type === 'step.begin' && event.compaction !== undefined,
    answerHasToolCalls: ({ event }) => {
      assertEvent(event, 'model.done');
      return event.toolCalls.length > 0;
    },
    mayRetry: ({ context }) => context.retryInMs !== undefined,
    requestErrorHooksDue: ({ context }) => context.hooks?.requestError === true,
    requestHooksDue: ({ context }) => context.hooks?.request === true,
    hookRetries: ({ event }) => event.type === 'hook.requestError' && event.retryInMs !== undefined,
    hasStreamedText: ({ context }) => context.streamed,
    compactingForOverflow: ({ context }) => context.compacting?.trigger === 'overflow',
    /** A step's first overflow, with overflow compaction on: compact and ask again. */
    overflowToCompact: ({ context, event }) =>
      isOverflow(event) &&
      context.compactOnOverflow === true &&
      context.kind === 'step' &&
      context.overflow === undefined,
    /** The summarising request itself overflowed. */
    summaryOverflowed: ({ context, event }) => isOverflow(event) && context.compacting !== undefined,
    /** The request was still too long after this step's compaction. */
    overflowedAgain: ({ context, event }) => isOverflow(event) && context.overflow !== undefined,
  },
}).createMachine({
  id: 'step',
  context: ({ input }) => ({ ...input, ...freshStep(0), retry: input.retry ?? defaultRetryPolicy }),
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
        // A step a stopped process left waiting on its tools: its answer is in the log, the batch goes on.
        'step.resume': {
          target: 'executingTools',
          actions: [
            assign(({ event }) => resumedStep(event)),
            sendTo('batch', ({ event }) => ({ type: 'batch.resume', step: event.step, calls: event.calls })),
          ],
        },
      },
    },
    preparing: {
      entry: { type: 'log', params: ({ context }) => stepStartEntry(context) },
      always: [{ guard: 'requestHooksDue', target: 'hookingRequest' }, { target: 'requesting' }],
    },
    // The `request` hooks may change the system prompt or narrow the tools of this step's request; their
    // decisions are logged here, and the model call reads the change back from the log.
    hookingRequest: {
      entry: spawnChild('requestHook', {
        id: 'hook',
        input: ({ context: { agentKey, turn, step } }) => ({ agentKey, turn, step }),
      }),
      exit: stopChild('hook'),
      on: {
        'hook.request': { target: 'requesting', actions: 'logHookDecisions' },
        'step.cancel': { target: 'done', actions: 'markCanceled' },
      },
    },
    requesting: {
      entry: [
        assign({ streamed: false, error: undefined }),
        sendTo(
          'model',
          ({ context: { turn, step, attempt, compacting } }): ModelCallCommand => ({
            type: 'model.request',
            turn,
            step,
            attempt,
            ...(compacting
              ? { compaction: compacting.instructions ? { instructions: compacting.instructions } : {} }
              : {}),
          }),
        ),
      ],
      on: {
        'model.streaming': { actions: assign({ streamed: true }) },
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
          {
            target: 'recovering',
            actions: assign({
              error: ({ event }) => event.error,
              retryInMs: ({ context, event }) =>
                retryDelay(
                  event.error,
                  context.attempt,
                  context.retry,
                  `${context.jitterKey}:${context.turn}:${context.step}`,
                ),
            }),
          },
        ],
        // The model call reports nothing after an abort, so no stale event can reach a later attempt.
        'step.cancel': [
          {
            guard: 'hasStreamedText',
            target: 'interrupting',
            actions: ['markCanceled', sendTo('model', { type: 'model.interrupt' })],
          },
          { target: 'done', actions: ['abortModelCall', 'markCanceled'] },
        ],
      },
    },
    // Text reached consumers before the cancel: the model call stops and hands it over, to be logged.
    interrupting: {
      on: { 'model.interrupted': { target: 'done', actions: 'logInterrupted' } },
    },
    recovering: {
      always: [
        { guard: 'requestErrorHooksDue', target: 'hookingError' },
        {
          guard: 'mayRetry',
          target: 'waitingToRetry',
          actions: { type: 'log', params: ({ context }) => attemptEntry(context, context.retryInMs!) },
        },
        {
          target: 'done',
          actions: { type: 'log', params: ({ context }) => lastAttemptEntry(context, context.error!) },
        },
      ],
    },
    // The `requestError` hooks may override the retry policy's decision: retry after N ms, or give up.
    hookingError: {
      entry: spawnChild('requestErrorHook', {
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
      }),
      exit: stopChild('hook'),
      on: {
        'hook.requestError': [
          {
            guard: 'hookRetries',
            target: 'waitingToRetry',
            actions: [
              'logHookDecisions',
              assign({ retryInMs: ({ event }) => (event as HookRequestErrorEvent).retryInMs }),
              {
                type: 'log',
                params: ({ context, event }) =>
                  attemptEntry(context, (event as HookRequestErrorEvent).retryInMs!),
              },
            ],
          },
          {
            target: 'done',
            actions: [
              'logHookDecisions',
              { type: 'log', params: ({ context }) => lastAttemptEntry(context, context.error!) },
            ],
          },
        ],
        'step.cancel': { target: 'done', actions: ['markCanceled', assign({ error: undefined })] },
      },
    },
    waitingToRetry: {
      entry: spawnChild('retryTimer', {
        id: 'retryTimer',
        input: ({ context }) => ({ delayMs: context.retryInMs! }),
      }),
      exit: stopChild('retryTimer'),
      on: {
        'retry.due': {
          target: 'requesting',
          actions: assign({ attempt: ({ context }) => context.attempt + 1 }),
        },
        'step.cancel': { target: 'done', actions: ['markCanceled', assign({ error: undefined })] },
      },
    },
    // The batch was begun (`model.done`) or resumed (`step.resume`) by the transition that led here.
    executingTools: {
      on: {
        'batch.done': {
          target: 'done',
          actions: assign({ unknownTools: ({ event }) => event.output.unknownTools }),
        },
        // The batch aborts what runs and still commits a result for every call before it reports done.
        'step.cancel': {
          actions: ['markCanceled', sendTo('batch', { type: 'batch.cancel' })],
        },
      },
    },
    // The step is over: logged, reported to the turn, and the actor waits for the next `step.begin`.
    done: {
      entry: [
        enqueueActions(({ context, enqueue }) => {
          if (context.kind === 'step') enqueue({ type: 'log', params: stepEndEntry(context) });
        }),
        sendTo(
          parentOf,
          ({ context }): StepDoneEvent => ({ type: 'step.done', output: stepOutput(context) }),
        ),
      ],
      always: 'idle',
    },
  },
});
