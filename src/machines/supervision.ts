// The supervision of one background child or job task: it watches the child's turn, and on a failure its
// policy restarts (a turn that ended `model_error`, a run that crashed) it waits (`backingOff`, a timer on
// the injected clock), restarts the child from its own log (`restarting`), and watches again — until the
// child's turn ends any other way (`done`), the restarts are spent (`escalated`: the failure is the child's
// result), or its parent stops it (`stopped`). The chart decides; the runtime's actors do the work.
import { assign, fromCallback, setup } from 'xstate';
import { failureOf, restartDelay } from './supervision-policy.ts';
import type {
  RestartReport,
  SupervisedFailure,
  SupervisionContext,
  SupervisionEvent,
  SupervisionInput,
} from './supervision-types.ts';
import { waitState } from './wait-state.ts';

export type {
  RestartReport,
  SupervisedFailure,
  SupervisionContext,
  SupervisionEvent,
  SupervisionInput,
} from './supervision-types.ts';

type Context = { context: SupervisionContext; event: SupervisionEvent };

/** The failure the event reports, if it is one (a turn's end that is not is no failure). */
function failureIn(event: SupervisionEvent): SupervisedFailure | undefined {
  if (event.type === 'child.crashed') return { reason: 'crashed', error: event.error };
  if (event.type === 'child.ended') return failureOf(event.reason, event.error);
  return undefined;
}

const chart = setup({
  types: {} as { context: SupervisionContext; events: SupervisionEvent; input: SupervisionInput },
  actors: {
    // Placeholders: the runtime provides the real actors through `provide()`.
    /** Reports the end of the child's current turn: `child.ended`, or `child.crashed`. */
    childTurn: fromCallback<{ type: 'noop' }, { childId: string; restarts: number }>(() => {}),
    /** Sends `retry.due` after `delayMs` on the injected clock. */
    restartTimer: fromCallback<{ type: 'noop' }, { delayMs: number }>(() => {}),
    /**
     * Brings the child back from its own log (repaired if its agent is gone), writes `session.restarted`
     * there and gives it the work again: `child.restarted`, or `child.crashed` when it cannot.
     */
    childRestart: fromCallback<
      { type: 'noop' },
      { childId: string; attempt: number; failure: SupervisedFailure }
    >(() => {}),
  },
  actions: {
    /** The runtime writes `agent.restarted` in the parent's log (or tells a job's progress). */
    reportRestart: (_args, _report: RestartReport) => {},
    /** A restart is decided: counted, its failure kept, its wait set. */
    decideRestart: assign(({ context, event }) => {
      const restarts = context.restarts + 1;
      return {
        restarts,
        failure: failureIn(event),
        delayMs: restartDelay(context.policy!, restarts),
      };
    }),
    keepFailure: assign(({ event }) => ({ failure: failureIn(event) })),
  },
  guards: {
    /** A failure the policy restarts, with a restart left. */
    restarts: ({ context, event }: Context) =>
      failureIn(event) !== undefined &&
      context.policy !== undefined &&
      context.restarts < context.policy.maxRestarts,
    /** A failure of a supervised child with no restart left. */
    spent: ({ context, event }: Context) => failureIn(event) !== undefined && context.policy !== undefined,
    restartPending: ({ context }: Context) => context.failure !== undefined,
  },
});

/** What `reportRestart` is given, read after `decideRestart` has counted the restart. */
const report = ({ context }: { context: SupervisionContext }): RestartReport => ({
  childId: context.childId,
  attempt: context.restarts,
  ...context.failure!,
  backoffMs: context.delayMs,
});

/** The transitions a failure takes wherever one is heard: restart, escalate, or (unsupervised) end. */
const onFailure = [
  {
    guard: 'restarts',
    target: '#supervision.backingOff',
    actions: ['decideRestart', { type: 'reportRestart', params: report }],
  },
  { guard: 'spent', target: '#supervision.escalated', actions: 'keepFailure' },
  { target: '#supervision.done' },
] as const;

/**
 * One child's supervision, from its first turn to its result: `running` ⇄ (`backingOff` → `restarting`)
 * up to `maxRestarts` times, then `done`, `escalated` or `stopped`.
 */
export const supervisionMachine = chart.createMachine({
  id: 'supervision',
  context: ({ input }) => ({
    childId: input.childId,
    policy: input.policy,
    restarts: input.restarts,
    failure: input.pending && {
      reason: input.pending.reason,
      ...(input.pending.error !== undefined ? { error: input.pending.error } : {}),
    },
    delayMs: input.pending?.delayMs ?? 0,
  }),
  initial: 'starting',
  states: {
    // A resume that found a restart decided but not carried out waits out what is left of it.
    starting: {
      always: [{ guard: 'restartPending', target: 'backingOff' }, { target: 'running' }],
    },
    // A stop while the child runs cancels it (the runtime does): its turn then ends `canceled`, here.
    running: waitState(chart, {
      src: 'childTurn',
      id: 'turn',
      input: ({ context }) => ({ childId: context.childId, restarts: context.restarts }),
      on: { 'child.ended': onFailure, 'child.crashed': onFailure },
    }),
    backingOff: waitState(chart, {
      src: 'restartTimer',
      id: 'timer',
      input: ({ context }) => ({ delayMs: context.delayMs }),
      on: { 'retry.due': 'restarting', 'supervision.stop': 'stopped' },
    }),
    restarting: waitState(chart, {
      src: 'childRestart',
      id: 'restart',
      input: ({ context }) => ({
        childId: context.childId,
        attempt: context.restarts,
        failure: context.failure!,
      }),
      on: {
        'child.restarted': 'running',
        'child.crashed': onFailure,
        'supervision.stop': 'stopped',
      },
    }),
    done: { type: 'final' },
    escalated: { type: 'final' },
    stopped: { type: 'final' },
  },
});
