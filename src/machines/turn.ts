import { assertEvent, assign, enqueueActions, fromCallback, setup } from 'xstate';
import type { ProviderErrorData } from '../errors/provider-error.ts';
import { addUsage, emptyUsage, type Usage } from '../providers/types.ts';
import type { CancelCause, LogEntry, StopReason } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import type { InboxItem } from './inbox.ts';
import { logNothing } from './log-action.ts';
import { type StepDoneEvent, type StepOutcome, type StepSettings, stepMachine } from './step.ts';

export type TurnLimits = { maxSteps: number; maxUnknownToolCalls: number };

export type TurnInput = AgentKeyed & {
  turn: number;
  /** Follow-ups this turn answers, claimed when it starts. */
  followups: InboxItem[];
  /** Steer/inject items already waiting, claimed before the first step. */
  nextStep: InboxItem[];
  limits: TurnLimits;
  hasPreStepHook: boolean;
  step: StepSettings;
};

export type TurnEvent =
  | StepDoneEvent
  | { type: 'turn.begin' }
  | { type: 'turn.cancel'; cause: CancelCause; clearInbox?: boolean }
  | { type: 'inbox.nextStep'; items: InboxItem[] }
  | { type: 'hook.allow' }
  | { type: 'hook.veto'; reason: string }
  | { type: 'log.flushed' };

export type TurnOutput = {
  turn: number;
  reason: StopReason;
  usage: Usage;
  /** Next-step input that no step claimed; the agent keeps it queued, so nothing is dropped. */
  unclaimed: InboxItem[];
};

/** What the agent receives when the turn reaches its final state. */
export type TurnDoneEvent = { type: 'xstate.done.actor.turn'; output: TurnOutput };

export type TurnContext = Omit<TurnInput, 'nextStep'> & {
  stepCount: number;
  pending: InboxItem[];
  usage: Usage;
  consecutiveUnknown: number;
  lastOutcome: StepOutcome | undefined;
  cancelCause: CancelCause | undefined;
  reason: StopReason | undefined;
  error: ProviderErrorData | undefined;
  vetoReason: string | undefined;
};

function claimEntries(turn: number, items: readonly InboxItem[]): LogEntry[] {
  if (items.length === 0) return [];
  return [
    { type: 'inbox.claimed', turn, data: { ids: items.map((item) => item.id) } },
    ...items.map(
      (item): LogEntry => ({
        type: 'user.message',
        turn,
        data: { channel: item.channel, content: item.message, inboxId: item.id },
      }),
    ),
  ];
}

const wantsAnotherStep = (context: TurnContext) =>
  context.lastOutcome === 'tools' || context.lastOutcome === 'continue' || context.pending.length > 0;

/**
 * One turn: the steps that answer one batch of input. It claims queued input before each step, runs
 * steps until the model stops asking for tools (or a limit, an error, a hook or a cancel ends it) and
 * writes `turn.end` before reporting to the agent, after the log is flushed.
 */
export const turnMachine = setup({
  types: {} as { context: TurnContext; events: TurnEvent; input: TurnInput; output: TurnOutput },
  actors: {
    step: stepMachine,
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    preStepHook: fromCallback<{ type: 'noop' }, AgentKeyed & { turn: number; step: number }>(() => {}),
    logFlush: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
  },
  actions: {
    log: logNothing,
    /** Logs claimed input as user messages, so the model sees only what the log holds. */
    claimFollowups: enqueueActions(({ context, enqueue }) => {
      for (const entry of claimEntries(context.turn, context.followups))
        enqueue({ type: 'log', params: entry });
    }),
    /** `cancel(…, { clearInbox })` also drops next-step input the turn holds, and logs that it did. */
    clearPendingIfAsked: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'turn.cancel');
      if (!event.clearInbox || context.pending.length === 0) return;
      enqueue({
        type: 'log',
        params: {
          type: 'inbox.cleared',
          turn: context.turn,
          data: { ids: context.pending.map((item) => item.id) },
        },
      });
      enqueue.assign({ pending: [] });
    }),
    /** A cancel while no step runs ends the turn `canceled` at once (a running step is told first). */
    cancelBeforeStep: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'turn.cancel');
      enqueue('clearPendingIfAsked');
      enqueue.assign({ cancelCause: event.cause, reason: 'canceled' });
    }),
    claimPending: enqueueActions(({ context, enqueue }) => {
      for (const entry of claimEntries(context.turn, context.pending))
        enqueue({ type: 'log', params: entry });
      enqueue.assign({ pending: [] });
    }),
  },
  guards: {
    canceled: ({ context }) => context.cancelCause !== undefined,
    modelError: ({ context }) => context.lastOutcome === 'model_error',
    maxTokens: ({ context }) => context.lastOutcome === 'max_tokens',
    unknownToolLimit: ({ context }) => context.consecutiveUnknown >= context.limits.maxUnknownToolCalls,
    stepLimit: ({ context }) => wantsAnotherStep(context) && context.stepCount >= context.limits.maxSteps,
    anotherStep: ({ context }) => wantsAnotherStep(context),
    hasPreStepHook: ({ context }) => context.hasPreStepHook,
  },
}).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    agentKey: input.agentKey,
    turn: input.turn,
    followups: input.followups,
    limits: input.limits,
    hasPreStepHook: input.hasPreStepHook,
    step: input.step,
    stepCount: 0,
    pending: input.nextStep,
    usage: emptyUsage,
    consecutiveUnknown: 0,
    lastOutcome: undefined,
    cancelCause: undefined,
    reason: undefined,
    error: undefined,
    vetoReason: undefined,
  }),
  on: {
    'inbox.nextStep': {
      actions: assign({ pending: ({ context, event }) => [...context.pending, ...event.items] }),
    },
  },
  initial: 'created',
  states: {
    // The agent sends `turn.begin` once the turn actor runs, so the turn's own log entries come before
    // those of the step it spawns (XState starts children spawned in an initial macrostep first).
    created: {
      on: {
        'turn.begin': 'starting',
        'turn.cancel': { target: 'ending', actions: 'cancelBeforeStep' },
      },
    },
    starting: {
      entry: [
        {
          type: 'log',
          params: ({ context }): LogEntry => ({ type: 'turn.start', turn: context.turn, data: {} }),
        },
        'claimFollowups',
        // One step actor serves every step of the turn; `step.begin` starts each one.
        enqueueActions(({ context, enqueue }) =>
          enqueue.spawnChild('step', {
            id: 'step',
            input: { ...context.step, agentKey: context.agentKey, turn: context.turn },
          }),
        ),
      ],
      always: 'preStep',
    },
    preStep: {
      entry: 'claimPending',
      initial: 'choosing',
      states: {
        choosing: { always: [{ guard: 'hasPreStepHook', target: 'hook' }, { target: '#turn.stepping' }] },
        hook: {
          entry: enqueueActions(({ context, enqueue }) =>
            enqueue.spawnChild('preStepHook', {
              id: 'hook',
              input: { agentKey: context.agentKey, turn: context.turn, step: context.stepCount + 1 },
            }),
          ),
          exit: enqueueActions(({ enqueue }) => enqueue.stopChild('hook')),
          on: {
            'hook.allow': '#turn.stepping',
            'hook.veto': {
              target: '#turn.ending',
              actions: [
                assign({ vetoReason: ({ event }) => event.reason }),
                assign({ reason: 'blocked' as const }),
              ],
            },
            'turn.cancel': { target: '#turn.ending', actions: 'cancelBeforeStep' },
          },
        },
      },
    },
    stepping: {
      entry: [
        assign({ stepCount: ({ context }) => context.stepCount + 1 }),
        enqueueActions(({ context, enqueue }) =>
          enqueue.sendTo('step', { type: 'step.begin', step: context.stepCount }),
        ),
      ],
      on: {
        'step.done': {
          target: 'deciding',
          actions: [
            assign(({ context, event }) => ({
              lastOutcome: event.output.outcome,
              usage: addUsage(context.usage, event.output.usage),
              error: event.output.error,
              // A step counts towards the limit only when every call it made named an unknown tool.
              consecutiveUnknown:
                event.output.toolCalls > 0 && event.output.unknownTools === event.output.toolCalls
                  ? context.consecutiveUnknown + 1
                  : 0,
            })),
          ],
        },
        'turn.cancel': {
          actions: [
            'clearPendingIfAsked',
            assign({ cancelCause: ({ context, event }) => context.cancelCause ?? event.cause }),
            enqueueActions(({ enqueue }) => enqueue.sendTo('step', { type: 'step.cancel' })),
          ],
        },
      },
    },
    deciding: {
      always: [
        { guard: 'canceled', target: 'ending', actions: assign({ reason: 'canceled' as const }) },
        { guard: 'modelError', target: 'ending', actions: assign({ reason: 'model_error' as const }) },
        { guard: 'maxTokens', target: 'ending', actions: assign({ reason: 'max_tokens' as const }) },
        {
          guard: 'unknownToolLimit',
          target: 'ending',
          actions: assign({ reason: 'unknown_tool_limit' as const }),
        },
        { guard: 'stepLimit', target: 'ending', actions: assign({ reason: 'max_steps' as const }) },
        { guard: 'anotherStep', target: 'preStep' },
        { target: 'ending', actions: assign({ reason: 'completed' as const }) },
      ],
    },
    ending: {
      entry: [
        {
          type: 'log',
          params: ({ context }): LogEntry => ({
            type: 'turn.end',
            turn: context.turn,
            data: {
              reason: context.reason!,
              usage: context.usage,
              ...(context.cancelCause ? { cause: context.cancelCause } : {}),
              ...(context.reason === 'model_error' && context.error ? { error: context.error } : {}),
              ...(context.vetoReason !== undefined ? { vetoReason: context.vetoReason } : {}),
            },
          }),
        },
        enqueueActions(({ context, enqueue }) =>
          enqueue.spawnChild('logFlush', { id: 'flush', input: { agentKey: context.agentKey } }),
        ),
      ],
      on: { 'log.flushed': 'done', 'turn.cancel': { actions: 'clearPendingIfAsked' } },
    },
    done: {
      type: 'final',
      entry: enqueueActions(({ enqueue }) => enqueue.stopChild('flush')),
    },
  },
  output: ({ context }) => ({
    turn: context.turn,
    reason: context.reason!,
    usage: context.usage,
    unclaimed: context.pending,
  }),
});
