// The step chart's setup: the actors it spawns (placeholders the runtime replaces through `provide()`),
// and the named actions and guards its states refer to. The state tree is in `step.ts`.
import { assertEvent, assign, enqueueActions, fromCallback, sendTo, setup } from 'xstate';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import { addUsage } from '../providers/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { logNothing } from './log-action.ts';
import { parentOf } from './parent.ts';
import { retryDelay } from './retry-policy.ts';
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
} from './step-entries.ts';
import type { ModelCallCommand, StepContext, StepDoneEvent, StepEvent, StepInput } from './step-types.ts';
import { type BatchBeginEvent, toolBatchMachine } from './tool-batch.ts';

const isOverflow = (event: StepEvent) =>
  event.type === 'model.error' && event.error.kind === 'context_overflow';

export const stepSetup = setup({
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
      // Onto the fresh literal: fields added after a spread (`tools`) take V8's slow path.
      return Object.assign(
        freshStep(event.step),
        event.compaction ? { kind: 'compaction' as const, compacting: event.compaction } : {},
        event.tools ?? {},
      );
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
    interruptModelCall: sendTo('model', { type: 'model.interrupt' }),
    /** Each attempt asks the model call anew; what the last one streamed or failed with is forgotten. */
    requestModel: enqueueActions(({ context: { turn, step, attempt, compacting }, enqueue }) => {
      enqueue.assign({ streamed: false, error: undefined });
      const compaction = compacting
        ? { compaction: compacting.instructions ? { instructions: compacting.instructions } : {} }
        : {};
      enqueue.sendTo('model', {
        type: 'model.request',
        turn,
        step,
        attempt,
        ...compaction,
      } satisfies ModelCallCommand);
    }),
    markStreamed: assign({ streamed: true }),
    /** A step a stopped process left waiting on its tools: its answer is in the log, the batch goes on. */
    resumeBatch: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'step.resume');
      enqueue.assign(resumedStep(event));
      enqueue.sendTo('batch', { type: 'batch.resume', step: event.step, calls: event.calls });
    }),
    /** The retry policy says whether, and after how long, the failed attempt is tried again. */
    planRetry: assign(({ context, event }) => {
      assertEvent(event, 'model.error');
      const jitterKey = `${context.jitterKey}:${context.turn}:${context.step}`;
      return {
        error: event.error,
        retryInMs: retryDelay(event.error, context.attempt, context.retry, jitterKey),
      };
    }),
    logRetry: enqueueActions(({ context, enqueue }) => {
      enqueue({ type: 'log', params: attemptEntry(context, context.retryInMs!) });
    }),
    /** The step gives up: the last attempt is logged with the error it ends with. */
    logGiveUp: enqueueActions(({ context, enqueue }) => {
      enqueue({ type: 'log', params: lastAttemptEntry(context, context.error!) });
    }),
    /** The `requestError` hooks chose to retry, after the delay they named. */
    retryAsHooked: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.requestError');
      enqueue.assign({ retryInMs: event.retryInMs });
      enqueue({ type: 'log', params: attemptEntry(context, event.retryInMs!) });
    }),
    nextAttempt: assign({ attempt: ({ context }) => context.attempt + 1 }),
    /** A cancel while waiting to retry: the step ends canceled, not failed. */
    cancelRetry: assign({ canceled: true, error: undefined }),
    recordBatch: assign(({ event }) => {
      assertEvent(event, 'batch.done');
      return { unknownTools: event.output.unknownTools };
    }),
    cancelBatch: sendTo('batch', { type: 'batch.cancel' }),
    /** The step is over: logged (a compaction has no `step.end`) and reported to the turn. */
    endStep: enqueueActions(({ context, enqueue }) => {
      if (context.kind === 'step') enqueue({ type: 'log', params: stepEndEntry(context) });
      enqueue.sendTo(parentOf, { type: 'step.done', output: stepOutput(context) } satisfies StepDoneEvent);
    }),
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
});
