// The agent chart's setup: the actors it spawns (placeholders the runtime replaces through `provide()`,
// the turn chart itself), and the named actions and guards its states refer to. The state tree is in
// `agent.ts`.
import { assertEvent, assign, emit, enqueueActions, fromCallback, sendTo, setup } from 'xstate';
import { hasWakingInput, turnInput } from './agent-entries.ts';
import type { AgentKeyed } from './agent-key.ts';
import type { AgentContext, AgentEmitted, AgentEvent, AgentInput, SetupStage } from './agent-types.ts';
import { sessionStartContext } from './hook-events.ts';
import { isNextStepItem, itemOf, queuedEntry, resultSenders, takenByTurn } from './inbox.ts';
import { logNothing } from './log-action.ts';
import { turnMachine } from './turn.ts';

export const agentSetup = setup({
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
    finishWorktree: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    revoke: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    releaseChildren: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
  },
  actions: {
    log: logNothing,
    /**
     * A dispose during creation lets the running stage answer (its undo needs to know what it did), but
     * tells it to stop waiting: MCP servers still starting, and the publish stage's `sessionStart` hooks.
     */
    abortStage: sendTo('stage', { type: 'setup.abort' }),
    markDisposeRequested: assign({ disposeRequested: true }),
    recordFailure: assign(({ event }) => {
      assertEvent(event, 'setup.error');
      return { creationError: event.error };
    }),
    /** Rolling back undoes the last completed stage; its state is entered again for the one before. */
    undoLastStage: enqueueActions(({ context, enqueue }) => {
      const stage = context.completedStages.at(-1);
      if (stage)
        enqueue.spawnChild('undoStage', {
          id: `undo:${stage}`,
          input: { agentKey: context.agentKey, stage },
        });
    }),
    recordUndo: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'undo.done');
      enqueue.stopChild(`undo:${event.stage}`);
      enqueue.assign({ completedStages: context.completedStages.slice(0, -1) });
    }),
    /** A dispose during creation, with nothing that failed, ends `disposed` with this as its reason. */
    markDisposedDuringCreation: assign({
      creationError: ({ context }) => context.creationError ?? 'disposed during creation',
    }),
    markToolsChanged: assign({ toolsChanged: true }),
    /** The running turn applies it before its next step; the flag covers a turn already ending. */
    forwardToolsChanged: enqueueActions(({ enqueue }) => {
      enqueue.sendTo('turn', { type: 'tools.changed' });
      enqueue.assign({ toolsChanged: true });
    }),
    /** How a compaction the host asked for ended, for the agent handle (`actor.on('compaction.settled')`). */
    emitCompaction: emit(({ event }) => {
      assertEvent(event, 'turn.compacted');
      return { type: 'compaction.settled' as const, result: event.result };
    }),
    /** After a cancel, queued input waits for new input instead of starting the next turn. */
    holdInbox: assign({ held: true }),
    logSessionEnd: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'hook.sessionEnd');
      for (const data of event.decisions) enqueue({ type: 'log', params: { type: 'hook.decided', data } });
    }),
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
      assertEvent(event, ['agent.followup', 'agent.steer', 'agent.inject', 'agent.mail']);
      const item = itemOf(event);
      enqueue({ type: 'log', params: queuedEntry(item) });
      // New waking input from the host releases input held back by an earlier cancel; mail does not.
      const held = context.held && (item.channel === 'inject' || item.from !== undefined);
      enqueue.assign({ inbox: [...context.inbox, item], held });
    }),
    /** Logs next-step input (and mail) as queued, then hands it to the running turn. */
    forwardToTurn: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, ['agent.steer', 'agent.inject', 'agent.mail']);
      const item = itemOf(event);
      enqueue({ type: 'log', params: queuedEntry(item) });
      enqueue.sendTo('turn', { type: 'inbox.nextStep', items: [item] });
    }),
    /**
     * A background child is live; the running turn owes it a wait when it was started with `wait`. Without
     * a running turn (a resume brought it back after its turn was cut short) the next turn owes it.
     */
    adoptChild: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.childStarted');
      const { live, owedToNextTurn } = context.children;
      const later = !context.turnAlive && event.wait ? [event.id] : [];
      enqueue.assign({
        children: {
          ...context.children,
          live: [...live, event.id],
          owedToNextTurn: [...owedToNextTurn, ...later],
        },
      });
      if (context.turnAlive && event.wait) enqueue.sendTo('turn', { type: 'agents.owe', id: event.id });
    }),
    /** A background child is gone: the running turn no longer waits for it. */
    dropChild: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.childEnded');
      const live = context.children.live.filter((id) => id !== event.id);
      const owedToNextTurn = context.children.owedToNextTurn.filter((id) => id !== event.id);
      enqueue.assign({ children: { ...context.children, live, owedToNextTurn } });
      if (context.turnAlive) enqueue.sendTo('turn', { type: 'agents.heard', id: event.id });
    }),
    /** A cancel also cancels and disposes the background children (once, however many cancels come). */
    releaseChildren: enqueueActions(({ context, enqueue }) => {
      if (context.children.live.length === 0 || context.children.releasing) return;
      enqueue.spawnChild('releaseChildren', { id: 'releasing', input: { agentKey: context.agentKey } });
      enqueue.assign({ children: { ...context.children, releasing: true } });
    }),
    childrenReleased: enqueueActions(({ context, enqueue }) => {
      enqueue.stopChild('releasing');
      enqueue.assign({ children: { ...context.children, releasing: false } });
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
      const taken = hasWakingInput(context) ? takenByTurn(context.inbox) : [];
      // A turn that answers input waits for the children owed to it, except those whose result it takes.
      const heard = resultSenders(taken);
      const { owedToNextTurn } = context.children;
      const owed = taken.length > 0 ? owedToNextTurn.filter((id) => !heard.includes(id)) : [];
      const input = { ...turnInput(context, turn, taken), ...(owed.length > 0 ? { owed } : {}) };
      enqueue.spawnChild('turn', { id: 'turn', input });
      enqueue.sendTo('turn', { type: 'turn.begin' });
      const inbox = context.inbox.filter((item) => !taken.includes(item));
      enqueue.assign({
        lastTurn: turn,
        inbox,
        turnAlive: true,
        compactRequest: undefined,
        toolsChanged: false,
        ...(taken.length > 0 ? { children: { ...context.children, owedToNextTurn: [] } } : {}),
      });
    }),
    /** Continues the turn a stopped process left waiting; next-step input queued meanwhile is its own. */
    resumeTurn: enqueueActions(({ context, enqueue }) => {
      const { turn, output, ...resume } = context.resume!;
      const taken = context.inbox.filter(isNextStepItem);
      const input = { ...turnInput(context, turn, taken), ...(output ? { output } : {}) };
      enqueue.spawnChild('turn', { id: 'turn', input });
      enqueue.sendTo(
        'turn',
        'owed' in resume ? { type: 'turn.resumeWaiting', ...resume } : { type: 'turn.resume', ...resume },
      );
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
    hasChildren: ({ context }) => context.children.live.length > 0,
    resuming: ({ context }) => context.resume !== undefined,
    sessionEndHooksDue: ({ context }) => context.sessionEndHooks === true,
    startsServers: ({ context }) => context.startsServers === true,
    isolated: ({ context }) => context.isolated === true,
  },
});
