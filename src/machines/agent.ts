import type { LogEntry } from '../session/types.ts';
import { agentSetup as chart } from './agent-setup.ts';
import type { AgentContext, SetupStage } from './agent-types.ts';
import { noCompaction, unknownContext } from './turn-types.ts';
import { waitState } from './wait-state.ts';

export type { AgentContext, AgentEmitted, AgentEvent, AgentInput, SetupStage } from './agent-types.ts';
export { setupStages } from './agent-types.ts';

/** Where a stage goes when it is done: the next stage, or the first of several whose guard holds. */
type NextStage = string | { guard?: 'isolated' | 'startsServers'; target: string }[];

/**
 * A state of the creation transaction: it runs `stage` through the `setupStage` actor, records it (with
 * its undo) when it is done, then goes on to `next`, or rolls back if dispose was asked for meanwhile.
 * Stages run in the order of `setupStages`; one with nothing to do (the servers of an agent that starts
 * none, the worktree of one that is not isolated) is never entered, so it costs no actor, and its undo
 * never runs.
 */
const stageState = (stage: SetupStage, next: NextStage) =>
  waitState(chart, {
    src: 'setupStage',
    id: 'stage',
    input: ({ context }) => ({ agentKey: context.agentKey, stage }),
    on: {
      'setup.done': [
        { guard: 'disposeRequested', target: '#agent.rollingBack', actions: 'recordStage' },
        ...(typeof next === 'string' ? [{ target: next }] : next).map((go) => ({
          ...go,
          actions: 'recordStage' as const,
        })),
      ],
    },
  });

/**
 * Every field of the agent's context. The context is built on a copy of this, so that making one only
 * overwrites fields: a literal that spreads an object first and then adds fields it lacks takes V8's slow
 * path (Node 20: ~35 µs per agent), and the copy keeps the shape XState's copies of it stay fast with.
 */
const contextFields: { [Field in keyof Required<AgentContext>]: undefined } = {
  agentKey: undefined,
  agentId: undefined,
  lastTurn: undefined,
  inbox: undefined,
  limits: undefined,
  preStepEveryStep: undefined,
  preStepAtTurnStart: undefined,
  sessionEndHooks: undefined,
  startsServers: undefined,
  isolated: undefined,
  step: undefined,
  completedStages: undefined,
  toolNames: undefined,
  systemHash: undefined,
  creationError: undefined,
  disposeRequested: undefined,
  turnAlive: undefined,
  toolsChanged: undefined,
  held: undefined,
  children: undefined,
  compaction: undefined,
  contextUsage: undefined,
  compactionTried: undefined,
  compactRequest: undefined,
  sessionStart: undefined,
  resume: undefined,
};

/**
 * The agent's lifecycle and inbox. Creation is a transaction of ordered stages whose undos run in
 * reverse on failure (connecting the MCP servers is one of them); `ready` runs one turn at a time; dispose
 * cancels the turn, waits for everything to settle, releases the background children, flushes the log,
 * closes the servers, finishes the worktree and unregisters, in that order, from any state.
 *
 * The flow: `creating` (one state per stage) → `ready` (`idle` ⇄ `running`) → `disposing` → `disposed`;
 * a failed stage goes through `rollingBack` to `failed`.
 */
export const agentMachine = chart.createMachine({
  id: 'agent',
  // Built on a copy of every field (`contextFields`): only overwrites, no field added.
  context: ({ input }) => ({
    ...contextFields,
    ...input,
    completedStages: [],
    toolNames: [],
    systemHash: '',
    creationError: undefined,
    disposeRequested: false,
    turnAlive: false,
    toolsChanged: false,
    held: false,
    children: { live: [], releasing: false, owedToNextTurn: [] },
    compaction: input.compaction ?? noCompaction,
    contextUsage: input.contextUsage ?? unknownContext,
    compactionTried: input.compactionTried ?? false,
    compactRequest: undefined,
    sessionStart: undefined,
    resume: input.resume,
  }),
  on: {
    // Outside a running turn (which is told at once), the next turn's first step applies the change.
    'agent.toolsChanged': { actions: 'markToolsChanged' },
    'turn.compacted': { actions: 'emitCompaction' },
    'agent.childEnded': { actions: 'dropChild' },
  },
  initial: 'creating',
  states: {
    creating: {
      initial: 'session',
      on: {
        'setup.error': { target: 'rollingBack', actions: 'recordFailure' },
        'agent.dispose': { actions: ['markDisposeRequested', 'abortStage'] },
      },
      states: {
        // One state per entry of `setupStages`, in the same order.
        session: stageState('session', [
          { guard: 'isolated', target: '#agent.creating.worktree' },
          { guard: 'startsServers', target: '#agent.creating.servers' },
          { target: '#agent.creating.tools' },
        ]),
        worktree: stageState('worktree', [
          { guard: 'startsServers', target: '#agent.creating.servers' },
          { target: '#agent.creating.tools' },
        ]),
        servers: stageState('servers', '#agent.creating.tools'),
        tools: stageState('tools', '#agent.creating.publish'),
        publish: stageState('publish', '#agent.ready'),
      },
    },
    rollingBack: {
      always: [
        // A failed stage ends in `failed`; a dispose during creation (nothing failed) ends in `disposed`.
        { guard: 'undoneAfterFailure', target: 'failed' },
        { guard: 'nothingToUndo', target: 'disposed', actions: 'markDisposedDuringCreation' },
      ],
      entry: 'undoLastStage',
      on: {
        'undo.done': { target: 'rollingBack', reenter: true, actions: 'recordUndo' },
        'agent.dispose': { actions: 'markDisposeRequested' },
      },
    },
    ready: {
      initial: 'idle',
      on: {
        'agent.followup': { actions: 'queue' },
        'agent.steer': { actions: 'queue' },
        'agent.inject': { actions: 'queue' },
        'agent.mail': { actions: 'queue' },
        'agent.childStarted': { actions: 'adoptChild' },
        'agent.cancel': { actions: ['logCancel', 'clearInbox', 'holdInbox', 'releaseChildren'] },
        'children.released': { actions: 'childrenReleased' },
        'agent.compact': { actions: 'requestCompaction' },
        'agent.dispose': 'disposing',
      },
      // A release a cancel began is taken over by dispose's own (`disposing.releasingChildren`).
      exit: 'childrenReleased',
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
            'agent.mail': { actions: 'forwardToTurn' },
            'agent.cancel': {
              actions: ['logCancel', 'clearInbox', 'holdInbox', 'cancelTurn', 'releaseChildren'],
            },
            'agent.compact': { actions: 'forwardCompaction' },
            'agent.toolsChanged': { actions: 'forwardToolsChanged' },
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
            { guard: 'hasChildren', target: 'releasingChildren' },
            { guard: 'sessionEndHooksDue', target: 'endingSession' },
            { target: 'flushing', actions: 'logSessionStart' },
          ],
        },
        quiescing: {
          on: {
            'xstate.done.actor.turn': [
              { guard: 'hasChildren', target: 'releasingChildren', actions: 'endTurn' },
              { guard: 'sessionEndHooksDue', target: 'endingSession', actions: 'endTurn' },
              { target: 'flushing', actions: ['endTurn', 'logSessionStart'] },
            ],
          },
        },
        // Background children are cancelled and disposed (theirs first) before this session ends: a
        // child's log never ends after its parent's. Without children dispose does not stop here.
        releasingChildren: waitState(chart, {
          src: 'releaseChildren',
          id: 'release',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          on: {
            'children.released': [
              { guard: 'sessionEndHooksDue', target: 'endingSession' },
              { target: 'flushing', actions: 'logSessionStart' },
            ],
          },
        }),
        // With `sessionEnd` hooks, they are told, within a time limit; what they decided is logged, and
        // dispose goes on whatever they answer (a failed hook is logged as such). Without, dispose does not
        // stop here: no actor, no timer.
        endingSession: waitState(chart, {
          src: 'sessionEndHook',
          id: 'hook',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          before: ['logSessionStart'],
          on: { 'hook.sessionEnd': { target: 'flushing', actions: 'logSessionEnd' } },
        }),
        flushing: waitState(chart, {
          src: 'logFlush',
          id: 'flush',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          before: [
            { type: 'log', params: { type: 'session.end', data: { reason: 'disposed' } } satisfies LogEntry },
          ],
          on: {
            'log.flushed': [
              { guard: 'startsServers', target: 'closing' },
              { guard: 'isolated', target: 'finishingWorktree' },
              { target: 'revoking' },
            ],
          },
        }),
        // The agent's MCP servers are closed once the log is complete, and their processes have exited
        // before the agent is unregistered. An agent that started none does not stop here.
        closing: waitState(chart, {
          src: 'closeServers',
          id: 'close',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          on: {
            'servers.closed': [{ guard: 'isolated', target: 'finishingWorktree' }, { target: 'revoking' }],
          },
        }),
        // An isolated agent's worktree, once nothing of the agent runs in it any more: what it left is
        // committed on its branch; unchanged, worktree and branch are removed, else both are kept. An agent
        // that is not isolated does not stop here.
        finishingWorktree: waitState(chart, {
          src: 'finishWorktree',
          id: 'worktree',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          on: { 'worktree.finished': 'revoking' },
        }),
        revoking: waitState(chart, {
          src: 'revoke',
          id: 'revoke',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          on: { 'revoke.done': '#agent.disposed' },
        }),
      },
    },
    failed: { type: 'final' },
    disposed: { type: 'final' },
  },
});
