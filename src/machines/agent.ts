import { assertEvent, assign, enqueueActions, fromCallback, setup } from 'xstate';
import type { CancelCause, LogEntry } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { type InboxEvent, type InboxItem, isNextStepItem, itemOf, queuedEntry } from './inbox.ts';
import { logNothing } from './log-action.ts';
import type { StepSettings } from './step.ts';
import { type TurnDoneEvent, type TurnInput, type TurnLimits, turnMachine } from './turn.ts';

/** The ordered stages of creating an agent. Each one that completes can be undone. */
export const setupStages = ['session', 'tools', 'publish'] as const;
export type SetupStage = (typeof setupStages)[number];

export type AgentInput = AgentKeyed & {
  agentId: string;
  /** The number of the last turn already in the log (0 for a new session). */
  lastTurn: number;
  /** Input queued in an earlier life of this session and never claimed. */
  inbox: InboxItem[];
  limits: TurnLimits;
  hasPreStepHook: boolean;
  /** How steps behave; the tools stage adds the tool names and the system prompt's hash. */
  step: Omit<StepSettings, 'toolNames' | 'systemHash'>;
};

export type AgentEvent =
  | { type: 'setup.done'; stage: SetupStage; toolNames?: string[]; systemHash?: string }
  | { type: 'setup.error'; stage: SetupStage; error: unknown }
  | { type: 'undo.done'; stage: SetupStage }
  | InboxEvent
  | { type: 'agent.cancel'; cause: CancelCause; clearInbox?: boolean }
  | { type: 'agent.dispose' }
  | TurnDoneEvent
  | { type: 'log.flushed' }
  | { type: 'revoke.done' };

export type AgentContext = AgentInput & {
  completedStages: SetupStage[];
  toolNames: string[];
  systemHash: string;
  creationError: unknown;
  disposeRequested: boolean;
  turnAlive: boolean;
  /** After a cancel, queued input waits for new input (or an explicit wake) instead of running at once. */
  held: boolean;
};

/**
 * A state of the creation transaction: it runs the next stage through the `setupStage` actor, records it
 * (with its undo) when it is done, then goes on to `next`, or rolls back if dispose was asked for meanwhile.
 */
function setupStageState(next: string) {
  return {
    entry: 'runNextStage',
    exit: 'stopStage',
    on: {
      'setup.done': [
        { guard: 'disposeRequested', target: '#agent.rollingBack', actions: 'recordStage' },
        { target: next, actions: 'recordStage' },
      ],
    },
  } as const;
}

/**
 * The agent's lifecycle and inbox. Creation is a transaction of ordered stages whose undos run in
 * reverse on failure; `ready` runs one turn at a time; dispose cancels the turn, waits for everything
 * to settle, flushes the log and unregisters, in that order, from any state.
 */
export const agentMachine = setup({
  types: {} as { context: AgentContext; events: AgentEvent; input: AgentInput },
  actors: {
    turn: turnMachine,
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    setupStage: fromCallback<{ type: 'noop' }, AgentKeyed & { stage: SetupStage }>(() => {}),
    undoStage: fromCallback<{ type: 'noop' }, AgentKeyed & { stage: SetupStage }>(() => {}),
    logFlush: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    revoke: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
  },
  actions: {
    log: logNothing,
    /**
     * Stages run in the order of `setupStages`, and each one is recorded before the next state is entered,
     * so the stage a `creating` state runs is the first one not yet completed.
     */
    runNextStage: enqueueActions(({ context, enqueue }) => {
      const stage = setupStages[context.completedStages.length]!;
      enqueue.spawnChild('setupStage', { id: 'stage', input: { agentKey: context.agentKey, stage } });
    }),
    stopStage: enqueueActions(({ enqueue }) => enqueue.stopChild('stage')),
    recordStage: assign(({ context, event }) => {
      assertEvent(event, 'setup.done');
      return {
        completedStages: [...context.completedStages, event.stage],
        ...(event.toolNames ? { toolNames: event.toolNames } : {}),
        ...(event.systemHash ? { systemHash: event.systemHash } : {}),
      };
    }),
    /** Queues input for a later turn or step and logs it, so a restart still has it. */
    queue: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ['agent.followup', 'agent.steer', 'agent.inject']);
      const item = itemOf(event);
      enqueue({ type: 'log', params: queuedEntry(item) });
      // New waking input releases input held back by an earlier cancel.
      enqueue.assign({ inbox: [...context.inbox, item], held: context.held && item.channel === 'inject' });
    }),
    /** Logs next-step input as queued, then hands it to the running turn. */
    forwardToTurn: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, ['agent.steer', 'agent.inject']);
      const item = itemOf(event);
      enqueue({ type: 'log', params: queuedEntry(item) });
      enqueue.sendTo('turn', { type: 'inbox.nextStep', items: [item] });
    }),
    clearInbox: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.cancel');
      if (!event.clearInbox || context.inbox.length === 0) return;
      enqueue({
        type: 'log',
        params: { type: 'inbox.cleared', data: { ids: context.inbox.map((item) => item.id) } },
      });
      enqueue.assign({ inbox: [] });
    }),
    startTurn: enqueueActions(({ context, enqueue }) => {
      const turn = context.lastTurn + 1;
      const input: TurnInput = {
        agentKey: context.agentKey,
        turn,
        followups: context.inbox.filter((item) => !isNextStepItem(item)),
        nextStep: context.inbox.filter(isNextStepItem),
        limits: context.limits,
        hasPreStepHook: context.hasPreStepHook,
        step: { ...context.step, toolNames: context.toolNames, systemHash: context.systemHash },
      };
      enqueue.spawnChild('turn', { id: 'turn', input });
      enqueue.sendTo('turn', { type: 'turn.begin' });
      enqueue.assign({ lastTurn: turn, inbox: [], turnAlive: true });
    }),
    /** The turn is over: input it never claimed goes back to the front of the inbox. */
    endTurn: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'xstate.done.actor.turn');
      enqueue.stopChild('turn');
      enqueue.assign({ turnAlive: false, inbox: [...event.output.unclaimed, ...context.inbox] });
    }),
    cancelTurn: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'agent.cancel');
      const clearInbox = event.clearInbox ? { clearInbox: true } : {};
      enqueue.sendTo('turn', { type: 'turn.cancel', cause: event.cause, ...clearInbox });
    }),
    /** Dispose with a turn alive: the turn ends `canceled` by `disposed`, and the agent waits for it. */
    cancelTurnForDispose: enqueueActions(({ enqueue }) =>
      enqueue.sendTo('turn', { type: 'turn.cancel', cause: 'disposed' }),
    ),
  },
  guards: {
    disposeRequested: ({ context }) => context.disposeRequested,
    nothingToUndo: ({ context }) => context.completedStages.length === 0,
    undoneAfterFailure: ({ context }) =>
      context.completedStages.length === 0 && context.creationError !== undefined,
    hasWakingInput: ({ context }) => !context.held && context.inbox.some((item) => item.channel !== 'inject'),
    turnAlive: ({ context }) => context.turnAlive,
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    ...input,
    completedStages: [],
    toolNames: [],
    systemHash: '',
    creationError: undefined,
    disposeRequested: false,
    turnAlive: false,
    held: false,
  }),
  initial: 'creating',
  states: {
    creating: {
      initial: 'session',
      on: {
        'setup.error': {
          target: 'rollingBack',
          actions: assign({ creationError: ({ event }) => event.error }),
        },
        'agent.dispose': { actions: assign({ disposeRequested: true }) },
      },
      states: {
        // One state per entry of `setupStages`, in the same order.
        session: setupStageState('#agent.creating.tools'),
        tools: setupStageState('#agent.creating.publish'),
        publish: setupStageState('#agent.ready'),
      },
    },
    rollingBack: {
      always: [
        // A failed stage ends in `failed`; a dispose during creation (nothing failed) ends in `disposed`.
        { guard: 'undoneAfterFailure', target: 'failed' },
        {
          guard: 'nothingToUndo',
          target: 'disposed',
          actions: assign({
            creationError: ({ context }) => context.creationError ?? 'disposed during creation',
          }),
        },
      ],
      entry: enqueueActions(({ context, enqueue }) => {
        const stage = context.completedStages.at(-1);
        if (stage)
          enqueue.spawnChild('undoStage', {
            id: `undo:${stage}`,
            input: { agentKey: context.agentKey, stage },
          });
      }),
      on: {
        'undo.done': {
          target: 'rollingBack',
          reenter: true,
          actions: enqueueActions(({ context, event, enqueue }) => {
            enqueue.stopChild(`undo:${event.stage}`);
            enqueue.assign({ completedStages: context.completedStages.slice(0, -1) });
          }),
        },
        'agent.dispose': { actions: assign({ disposeRequested: true }) },
      },
    },
    ready: {
      initial: 'idle',
      on: {
        'agent.followup': { actions: 'queue' },
        'agent.steer': { actions: 'queue' },
        'agent.inject': { actions: 'queue' },
        'agent.cancel': { actions: ['clearInbox', assign({ held: true })] },
        'agent.dispose': 'disposing',
      },
      states: {
        idle: {
          always: { guard: 'hasWakingInput', target: 'running' },
        },
        running: {
          entry: 'startTurn',
          on: {
            // Next-step input goes straight to the running turn, which claims it before its next step.
            'agent.steer': { actions: 'forwardToTurn' },
            'agent.inject': { actions: 'forwardToTurn' },
            'agent.cancel': { actions: ['clearInbox', assign({ held: true }), 'cancelTurn'] },
            'xstate.done.actor.turn': { target: 'idle', actions: 'endTurn' },
          },
        },
      },
    },
    disposing: {
      initial: 'cancelling',
      states: {
        cancelling: {
          always: [
            { guard: 'turnAlive', target: 'quiescing', actions: 'cancelTurnForDispose' },
            { target: 'flushing' },
          ],
        },
        quiescing: {
          on: { 'xstate.done.actor.turn': { target: 'flushing', actions: 'endTurn' } },
        },
        flushing: {
          entry: [
            { type: 'log', params: { type: 'session.end', data: { reason: 'disposed' } } satisfies LogEntry },
            enqueueActions(({ context, enqueue }) =>
              enqueue.spawnChild('logFlush', { id: 'flush', input: { agentKey: context.agentKey } }),
            ),
          ],
          on: {
            'log.flushed': {
              target: 'revoking',
              actions: enqueueActions(({ enqueue }) => enqueue.stopChild('flush')),
            },
          },
        },
        revoking: {
          entry: enqueueActions(({ context, enqueue }) =>
            enqueue.spawnChild('revoke', { id: 'revoke', input: { agentKey: context.agentKey } }),
          ),
          on: {
            'revoke.done': {
              target: '#agent.disposed',
              actions: enqueueActions(({ enqueue }) => enqueue.stopChild('revoke')),
            },
          },
        },
      },
    },
    failed: { type: 'final' },
    disposed: { type: 'final' },
  },
});
