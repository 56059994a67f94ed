import {
  assertEvent,
  assign,
  emit,
  enqueueActions,
  fromCallback,
  sendTo,
  setup,
  spawnChild,
  stopChild,
} from 'xstate';
import type { LogEntry } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import {
  type AgentContext,
  type AgentEmitted,
  type AgentEvent,
  type AgentInput,
  type SetupStage,
  setupStageState,
  setupStages,
  turnInput,
} from './agent-types.ts';
import { sessionStartContext } from './hook-events.ts';
import { isNextStepItem, itemOf, queuedEntry } from './inbox.ts';
import { logNothing } from './log-action.ts';
import { turnMachine } from './turn.ts';
import { noCompaction, unknownContext } from './turn-types.ts';

export type { AgentContext, AgentEmitted, AgentEvent, AgentInput, SetupStage } from './agent-types.ts';
export { setupStages } from './agent-types.ts';

/** Queued input that starts a turn: anything but injected notes, unless a cancel holds it back. */
const hasWakingInput = (context: AgentContext) =>
  !context.held && context.inbox.some((item) => item.channel !== 'inject');

/**
 * The agent's lifecycle and inbox. Creation is a transaction of ordered stages whose undos run in
 * reverse on failure (connecting the MCP servers is one of them); `ready` runs one turn at a time; dispose
 * cancels the turn, waits for everything to settle, flushes the log, closes the servers and unregisters,
 * in that order, from any state.
 */
export const agentMachine = setup({
  types: {} as { context: AgentContext; events: AgentEvent; input: AgentInput; emitted: AgentEmitted },
  actors: {
    turn: turnMachine,
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    setupStage: fromCallback<{ type: 'noop' } | { type: 'setup.abort' }, AgentKeyed & { stage: SetupStage }>(
      () => {},
    ),
    undoStage: fromCallback<{ type: 'noop' }, AgentKeyed & { stage: SetupStage }>(() => {}),
    logFlush: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    sessionEndHook: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    closeServers: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    revoke: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
  },
  actions: {
    log: logNothing,
    /**
     * Stages run in the order of `setupStages`, and each one is recorded before the next state is entered,
     * so the stage a `creating` state runs is the first one not yet completed.
     */
    runNextStage: spawnChild('setupStage', {
      id: 'stage',
      input: ({ context }) => ({
        agentKey: context.agentKey,
        stage: setupStages[context.completedStages.length]!,
      }),
    }),
    stopStage: stopChild('stage'),
    /**
     * A dispose during creation lets the running stage answer (its undo needs to know what it did), but
     * tells it to stop waiting: MCP servers still starting, and the publish stage's `sessionStart` hooks.
     */
    abortStage: sendTo('stage', { type: 'setup.abort' }),
    recordStage: assign(({ context, event }) => {
      assertEvent(event, 'setup.done');
      return {
        completedStages: [...context.completedStages, event.stage],
        ...(event.toolNames ? { toolNames: event.toolNames } : {}),
        ...(event.systemHash ? { systemHash: event.systemHash } : {}),
        ...(event.sessionStart ? { sessionStart: event.sessionStart } : {}),
      };
    }),
    /**
     * Logs what the `sessionStart` hooks decided during setup, and the context they added (read by the model
     * before the next input), once: before the first turn, or at dispose if none ran.
     */
    logSessionStart: enqueueActions(({ context, enqueue }) => {
      if (context.sessionStart === undefined) return;
      for (const data of context.sessionStart)
        enqueue({ type: 'log', params: { type: 'hook.decided', data } });
      const added = sessionStartContext(context.sessionStart);
      if (added !== undefined)
        enqueue({
          type: 'log',
          params: { type: 'user.message', data: { channel: 'inject', content: added } },
        });
      enqueue.assign({ sessionStart: undefined });
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
    /** A cancel is input from outside: logged with who asked, so a replay gives it again at this seq. */
    logCancel: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'agent.cancel');
      const clearInbox = event.clearInbox ? { clearInbox: true } : {};
      enqueue({
        type: 'log',
        params: { type: 'cancel.requested', data: { by: event.cause, ...clearInbox } },
      });
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
    /**
     * Starts a turn with the waiting input, or, woken only by a compaction request, a turn that only
     * compacts: it leaves queued input (injected notes included) where it is.
     */
    startTurn: enqueueActions(({ context, enqueue }) => {
      const turn = context.lastTurn + 1;
      const taken = hasWakingInput(context) ? context.inbox : [];
      enqueue.spawnChild('turn', { id: 'turn', input: turnInput(context, turn, taken) });
      enqueue.sendTo('turn', { type: 'turn.begin' });
      const inbox = context.inbox.filter((item) => !taken.includes(item));
      enqueue.assign({
        lastTurn: turn,
        inbox,
        turnAlive: true,
        compactRequest: undefined,
        toolsChanged: false,
      });
    }),
    /** Continues the turn a stopped process left waiting; next-step input queued meanwhile is its own. */
    resumeTurn: enqueueActions(({ context, enqueue }) => {
      const { turn, ...resume } = context.resume!;
      const taken = context.inbox.filter(isNextStepItem);
      enqueue.spawnChild('turn', { id: 'turn', input: turnInput(context, turn, taken) });
      enqueue.sendTo('turn', { type: 'turn.resume', ...resume });
      const inbox = context.inbox.filter((item) => !taken.includes(item));
      enqueue.assign({ lastTurn: turn, inbox, turnAlive: true, resume: undefined });
    }),
    /** The turn is over: input it never claimed goes back to the front of the inbox. */
    endTurn: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'xstate.done.actor.turn');
      const { unclaimed, contextUsage, compactionTried, compactRequest } = event.output;
      enqueue.stopChild('turn');
      enqueue.assign({
        turnAlive: false,
        inbox: [...unclaimed, ...context.inbox],
        contextUsage,
        compactionTried,
        compactRequest: compactRequest ?? context.compactRequest,
      });
    }),
    /** A compaction asked for: the running turn takes it, else the next turn (one that only compacts). */
    requestCompaction: assign(({ context, event }) => {
      assertEvent(event, 'agent.compact');
      const request = event.instructions ? { instructions: event.instructions } : {};
      return { compactRequest: context.compactRequest ?? request };
    }),
    forwardCompaction: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'agent.compact');
      const instructions = event.instructions ? { instructions: event.instructions } : {};
      enqueue.sendTo('turn', { type: 'turn.compact', ...instructions });
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
    hasWork: ({ context }) => hasWakingInput(context) || context.compactRequest !== undefined,
    turnAlive: ({ context }) => context.turnAlive,
    resuming: ({ context }) => context.resume !== undefined,
    sessionEndHooksDue: ({ context }) => context.sessionEndHooks === true,
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
    toolsChanged: false,
    held: false,
    compaction: input.compaction ?? noCompaction,
    contextUsage: input.contextUsage ?? unknownContext,
    compactionTried: input.compactionTried ?? false,
    compactRequest: undefined,
    sessionStart: undefined,
    resume: input.resume,
  }),
  // How a compaction the host asked for ended, for the agent handle (`actor.on('compaction.settled')`).
  on: {
    // Outside a running turn (which is told at once), the next turn's first step applies the change.
    'agent.toolsChanged': { actions: assign({ toolsChanged: true }) },
    'turn.compacted': {
      actions: emit(({ event }) => ({ type: 'compaction.settled', result: event.result })),
    },
  },
  initial: 'creating',
  states: {
    creating: {
      initial: 'session',
      on: {
        'setup.error': {
          target: 'rollingBack',
          actions: assign({ creationError: ({ event }) => event.error }),
        },
        'agent.dispose': { actions: [assign({ disposeRequested: true }), 'abortStage'] },
      },
      states: {
        // One state per entry of `setupStages`, in the same order.
        session: setupStageState('#agent.creating.servers'),
        servers: setupStageState('#agent.creating.tools'),
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
        'agent.cancel': { actions: ['logCancel', 'clearInbox', assign({ held: true })] },
        'agent.compact': { actions: 'requestCompaction' },
        'agent.dispose': 'disposing',
      },
      states: {
        idle: {
          always: [
            { guard: 'resuming', target: 'running', actions: ['logSessionStart', 'resumeTurn'] },
            { guard: 'hasWork', target: 'running', actions: ['logSessionStart', 'startTurn'] },
          ],
        },
        // The turn was started (`startTurn`) or continued (`resumeTurn`) by the transition that led here.
        running: {
          on: {
            // Next-step input goes straight to the running turn, which claims it before its next step.
            'agent.steer': { actions: 'forwardToTurn' },
            'agent.inject': { actions: 'forwardToTurn' },
            'agent.cancel': { actions: ['logCancel', 'clearInbox', assign({ held: true }), 'cancelTurn'] },
            'agent.compact': { actions: 'forwardCompaction' },
            // The running turn applies it before its next step; the flag covers a turn already ending.
            'agent.toolsChanged': {
              actions: [sendTo('turn', { type: 'tools.changed' }), assign({ toolsChanged: true })],
            },
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
            { guard: 'sessionEndHooksDue', target: 'endingSession' },
            { target: 'flushing', actions: 'logSessionStart' },
          ],
        },
        quiescing: {
          on: {
            'xstate.done.actor.turn': [
              { guard: 'sessionEndHooksDue', target: 'endingSession', actions: 'endTurn' },
              { target: 'flushing', actions: ['endTurn', 'logSessionStart'] },
            ],
          },
        },
        // With `sessionEnd` hooks, they are told, within a time limit; what they decided is logged, and
        // dispose goes on whatever they answer (a failed hook is logged as such). Without, dispose does not
        // stop here: no actor, no timer.
        endingSession: {
          entry: [
            'logSessionStart',
            spawnChild('sessionEndHook', {
              id: 'hook',
              input: ({ context }) => ({ agentKey: context.agentKey }),
            }),
          ],
          exit: stopChild('hook'),
          on: {
            'hook.sessionEnd': {
              target: 'flushing',
              actions: enqueueActions(({ event, enqueue }) => {
                for (const data of event.decisions)
                  enqueue({ type: 'log', params: { type: 'hook.decided', data } });
              }),
            },
          },
        },
        flushing: {
          entry: [
            { type: 'log', params: { type: 'session.end', data: { reason: 'disposed' } } satisfies LogEntry },
            spawnChild('logFlush', { id: 'flush', input: ({ context }) => ({ agentKey: context.agentKey }) }),
          ],
          on: {
            'log.flushed': {
              target: 'closing',
              actions: stopChild('flush'),
            },
          },
        },
        // The agent's MCP servers are closed once the log is complete, and their processes have exited
        // before the agent is unregistered.
        closing: {
          entry: spawnChild('closeServers', {
            id: 'close',
            input: ({ context }) => ({ agentKey: context.agentKey }),
          }),
          on: {
            'servers.closed': {
              target: 'revoking',
              actions: stopChild('close'),
            },
          },
        },
        revoking: {
          entry: spawnChild('revoke', {
            id: 'revoke',
            input: ({ context }) => ({ agentKey: context.agentKey }),
          }),
          on: {
            'revoke.done': {
              target: '#agent.disposed',
              actions: stopChild('revoke'),
            },
          },
        },
      },
    },
    failed: { type: 'final' },
    disposed: { type: 'final' },
  },
});
