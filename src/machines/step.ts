import { assertEvent, assign, enqueueActions, fromCallback, sendTo, setup } from 'xstate';
import { emptyUsage } from '../providers/types.ts';
import type { LogEntry } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { logNothing } from './log-action.ts';
import { parentOf } from './parent.ts';
import { defaultRetryPolicy, retryDelay } from './retry-policy.ts';
import type {
  ModelCallCommand,
  StepContext,
  StepDoneEvent,
  StepEvent,
  StepInput,
  StepOutcome,
  StepOutput,
} from './step-types.ts';
import { type BatchBeginEvent, toolBatchMachine } from './tool-batch.ts';

export type {
  ModelCallCommand,
  ModelDoneEvent,
  StepContext,
  StepDoneEvent,
  StepEvent,
  StepInput,
  StepOutcome,
  StepOutput,
  StepSettings,
} from './step-types.ts';

const where = (context: StepContext) => ({ turn: context.turn, step: context.step });

function outcomeOf(context: StepContext): StepOutcome {
  if (context.canceled) return 'canceled';
  if (context.error) return 'model_error';
  if (context.toolCalls.length > 0) return 'tools';
  if (context.stopReason === 'max_tokens') return 'max_tokens';
  if (context.stopReason === 'pause_turn') return 'continue';
  return 'final';
}

/** Everything a step starts without; `step.begin` resets to this, so no state leaks between steps. */
const freshStep = (step: number) => ({
  step,
  attempt: 1,
  streamedText: '',
  toolCalls: [],
  usage: emptyUsage,
  stopReason: undefined,
  error: undefined,
  retryInMs: undefined,
  unknownTools: 0,
  canceled: false,
});

/**
 * One model request and the tools it asks for, for every step of a turn: the actor lives as long as its
 * turn and waits in `idle` between steps, so a step costs events, not actor creations (DESIGN §1). Its
 * model-call actor and tool batch live as long, and are told what to do by events. Retrying is a state:
 * a failed attempt is logged, a timer actor (on the injected clock) says when to try again, and a cancel
 * while streaming keeps the text that consumers already saw as an interrupted assistant message.
 */
export const stepMachine = setup({
  types: {} as { context: StepContext; events: StepEvent; input: StepInput },
  actors: {
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    modelCall: fromCallback<ModelCallCommand, AgentKeyed>(() => {}),
    retryTimer: fromCallback<{ type: 'noop' }, { delayMs: number }>(() => {}),
    toolBatch: toolBatchMachine,
  },
  actions: {
    log: logNothing,
    recordResponse: assign(({ event }) => {
      assertEvent(event, 'model.done');
      return { toolCalls: event.toolCalls, usage: event.usage, stopReason: event.stopReason };
    }),
    logResponse: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'model.done');
      const data = {
        text: event.text,
        toolCalls: event.toolCalls,
        usage: event.usage,
        stopReason: event.stopReason,
        ...(event.providerParts?.length ? { providerParts: event.providerParts } : {}),
        ...(event.notes?.length ? { notes: event.notes } : {}),
      };
      enqueue({ type: 'log', params: { type: 'assistant.message', ...where(context), data } });
    }),
    markCanceled: assign({ canceled: true }),
    /** Text that consumers already saw stays in the log; half-built tool calls do not. */
    logInterrupted: enqueueActions(({ context, enqueue }) => {
      const data = {
        text: context.streamedText,
        toolCalls: [],
        usage: emptyUsage,
        stopReason: 'interrupted' as const,
        interrupted: true,
      };
      enqueue({ type: 'log', params: { type: 'assistant.message', ...where(context), data } });
    }),
    abortModelCall: enqueueActions(({ enqueue }) => enqueue.sendTo('model', { type: 'model.abort' })),
  },
  guards: {
    answerHasToolCalls: ({ event }) => {
      assertEvent(event, 'model.done');
      return event.toolCalls.length > 0;
    },
    mayRetry: ({ context }) => context.retryInMs !== undefined,
    hasStreamedText: ({ context }) => context.streamedText.length > 0,
  },
}).createMachine({
  id: 'step',
  context: ({ input }) => ({ ...input, ...freshStep(0), retry: input.retry ?? defaultRetryPolicy }),
  // Spawned once per turn, before any step: the model-call actor and the tool batch wait for work.
  entry: enqueueActions(({ context, enqueue }) => {
    const { agentKey, turn } = context;
    enqueue.spawnChild('modelCall', { id: 'model', input: { agentKey } });
    enqueue.spawnChild('toolBatch', {
      id: 'batch',
      input: { agentKey, turn, maxParallel: context.maxParallelTools },
    });
  }),
  initial: 'idle',
  states: {
    idle: {
      on: { 'step.begin': { target: 'preparing', actions: assign(({ event }) => freshStep(event.step)) } },
    },
    preparing: {
      entry: {
        type: 'log',
        params: ({ context }): LogEntry => ({
          type: 'step.start',
          ...where(context),
          data: { model: context.model, toolNames: context.toolNames, systemHash: context.systemHash },
        }),
      },
      always: 'requesting',
    },
    requesting: {
      entry: [
        assign({ streamedText: '', error: undefined }),
        enqueueActions(({ context, enqueue }) =>
          enqueue.sendTo('model', { type: 'model.request', ...where(context), attempt: context.attempt }),
        ),
      ],
      on: {
        'model.delta': {
          actions: assign({ streamedText: ({ context, event }) => context.streamedText + event.text }),
        },
        'model.done': [
          {
            target: 'executingTools',
            guard: 'answerHasToolCalls',
            actions: ['recordResponse', 'logResponse'],
          },
          { target: 'done', actions: ['recordResponse', 'logResponse'] },
        ],
        'model.error': {
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
        // The model call reports nothing after an abort, so no stale event can reach a later attempt.
        'step.cancel': [
          {
            guard: 'hasStreamedText',
            target: 'done',
            actions: ['abortModelCall', 'markCanceled', 'logInterrupted'],
          },
          { target: 'done', actions: ['abortModelCall', 'markCanceled'] },
        ],
      },
    },
    recovering: {
      always: [
        {
          guard: 'mayRetry',
          target: 'waitingToRetry',
          actions: {
            type: 'log',
            params: ({ context }): LogEntry => ({
              type: 'assistant.attempt',
              ...where(context),
              data: { error: context.error!, attempt: context.attempt, retryInMs: context.retryInMs! },
            }),
          },
        },
        { target: 'done' },
      ],
    },
    waitingToRetry: {
      entry: enqueueActions(({ context, enqueue }) =>
        enqueue.spawnChild('retryTimer', { id: 'retryTimer', input: { delayMs: context.retryInMs! } }),
      ),
      exit: enqueueActions(({ enqueue }) => enqueue.stopChild('retryTimer')),
      on: {
        'retry.due': {
          target: 'requesting',
          actions: assign({ attempt: ({ context }) => context.attempt + 1 }),
        },
        'step.cancel': { target: 'done', actions: ['markCanceled', assign({ error: undefined })] },
      },
    },
    executingTools: {
      entry: enqueueActions(({ context, enqueue }) =>
        enqueue.sendTo('batch', {
          type: 'batch.begin',
          step: context.step,
          calls: context.toolCalls,
        } satisfies BatchBeginEvent),
      ),
      on: {
        'batch.done': {
          target: 'done',
          actions: assign({ unknownTools: ({ event }) => event.output.unknownTools }),
        },
        // The batch aborts what runs and still commits a result for every call before it reports done.
        'step.cancel': {
          actions: [
            'markCanceled',
            enqueueActions(({ enqueue }) => enqueue.sendTo('batch', { type: 'batch.cancel' })),
          ],
        },
      },
    },
    // The step is over: logged, reported to the turn, and the actor waits for the next `step.begin`.
    done: {
      entry: [
        {
          type: 'log',
          params: ({ context }): LogEntry => ({
            type: 'step.end',
            ...where(context),
            data: { toolResults: context.toolCalls.length },
          }),
        },
        sendTo(
          parentOf,
          ({ context }): StepDoneEvent => ({ type: 'step.done', output: stepOutput(context) }),
        ),
      ],
      always: 'idle',
    },
  },
});

/** How the step ended, for the turn. */
export function stepOutput(context: StepContext): StepOutput {
  return {
    outcome: outcomeOf(context),
    toolCalls: context.toolCalls.length,
    unknownTools: context.unknownTools,
    usage: context.usage,
    ...(context.error && !context.canceled ? { error: context.error } : {}),
  };
}
