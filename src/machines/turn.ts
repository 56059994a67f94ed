import { assign } from 'xstate';
import { turnContext, turnEndEntry, turnOutput, turnStartEntry } from './turn-entries.ts';
import { turnSetup as chart } from './turn-setup.ts';
import { waitState } from './wait-state.ts';

export type {
  TurnCompactedEvent,
  TurnContext,
  TurnDoneEvent,
  TurnEvent,
  TurnInput,
  TurnLimits,
  TurnOutput,
  TurnResumeEvent,
  TurnResumeWaitingEvent,
} from './turn-types.ts';

/**
 * The compaction sub-flow, in the order it runs: a compaction is due (`compactionBegins`); with
 * `preCompact` hooks they are told first (`preCompacting`); then the step actor runs the compaction instead
 * of a step (`compacting`) and the turn decides again. The states stay siblings of the others (the drawn
 * chart and the state values the inspector and the logs show are those of a flat turn); this groups them.
 */
const compactionStates = {
  compactionBegins: chart.createStateConfig({
    always: [{ guard: 'preCompactHooksDue', target: 'preCompacting' }, { target: 'compacting' }],
  }),
  preCompacting: waitState(chart, {
    src: 'preCompactHook',
    id: 'hook',
    input: ({ context: { agentKey, turn, stepCount, compacting } }) => ({
      agentKey,
      turn,
      step: stepCount,
      trigger: compacting.request ? ('manual' as const) : ('auto' as const),
      ...(compacting.request?.instructions !== undefined
        ? { instructions: compacting.request.instructions }
        : {}),
    }),
    on: {
      'hook.preCompact': { target: 'compacting', actions: 'logPreCompact' },
      'turn.cancel': { target: 'ending', actions: 'cancelBeforeStep' },
    },
  }),
  compacting: chart.createStateConfig({
    entry: 'beginCompaction',
    on: {
      'step.done': { target: 'deciding', actions: 'recordCompaction' },
      'turn.cancel': { actions: 'cancelStep' },
    },
  }),
};

/**
 * One turn: the steps that answer one batch of input. It claims queued input before each step, runs
 * steps until the model stops asking for tools (or a limit, an error, a hook or a cancel ends it) and
 * writes `turn.end` before reporting to the agent, after the log is flushed. Before a step it may go
 * through `compacting`: when the host asked for it (`turn.compact`), or when the last request filled the
 * window past the threshold; the step actor then runs a compaction instead of a step.
 *
 * The flow: `created` → `starting` → (`screening`) → `deciding`, which loops through (the compaction
 * states) and `preStep` → `stepping` → `deciding`, until it ends through (`checkingOutput`, a typed turn's
 * check of its final answer, which may send it round again) → (`stopping`) → `ending` → `done`.
 * When the model is done while background children it started have not reported, the turn rests in
 * `waitingForAgents` until their results (or messages) come in, and then decides again: a typed turn's
 * answer is checked only once it waits for nobody, since what the children report starts another step.
 * The drawn chart (`diagrams/turn.mmd`) lists the states in the order they are declared here, so
 * `stopping` stays beside `screening` (the other hook wait at the turn's edges) where the drawing has it.
 */
export const turnMachine = chart.createMachine({
  id: 'turn',
  context: ({ input }) => turnContext(input),
  on: {
    'tools.changed': { actions: 'markToolsChanged' },
    'inbox.nextStep': { actions: 'holdNextStep' },
    'turn.compact': { guard: 'notServingRequest', actions: 'queueCompaction' },
    'agents.owe': { actions: 'oweAgent' },
    'agents.heard': { actions: 'hearAgent' },
  },
  initial: 'created',
  states: {
    // The agent sends `turn.begin` once the turn actor runs, so the turn's own log entries come before
    // those of the step it spawns (XState starts children spawned in an initial macrostep first).
    created: {
      on: {
        'turn.begin': 'starting',
        'turn.resume': { target: 'stepping', actions: 'resumeStep' },
        'turn.resumeWaiting': { target: 'deciding', actions: 'resumeWaiting' },
        'turn.cancel': { target: 'ending', actions: 'cancelBeforeStep' },
      },
    },
    starting: {
      entry: [{ type: 'log', params: ({ context }) => turnStartEntry(context) }, 'spawnStep'],
      always: [
        { guard: 'userMessageHooksDue', target: 'screening' },
        { target: 'deciding', actions: 'claimFollowups' },
      ],
    },
    // The `userMessage` hooks read the follow-ups before the model does: they may rewrite or block them.
    screening: waitState(chart, {
      src: 'userMessageHook',
      id: 'hook',
      input: ({ context: { agentKey, turn, followups } }) => ({
        agentKey,
        turn,
        messages: followups.map(({ id, message }) => ({ id, message })),
      }),
      on: {
        'hook.userMessage': [
          { guard: 'allBlocked', target: 'ending', actions: ['claimScreened', 'blockTurn'] },
          { target: 'deciding', actions: ['claimScreened', 'claimFollowups'] },
        ],
        // The follow-ups are claimed as they were: a cancel drops nothing silently.
        'turn.cancel': { target: 'ending', actions: ['claimFollowups', 'cancelBeforeStep'] },
      },
    }),
    // The model ended the turn: the `stop` hooks may refuse, with a message that starts another step.
    stopping: waitState(chart, {
      src: 'stopHook',
      id: 'hook',
      input: ({ context: { agentKey, turn, stepCount, hookVerdicts } }) => ({
        agentKey,
        turn,
        step: stepCount,
        refusals: hookVerdicts.stopRefusals,
      }),
      on: {
        'hook.stop': [
          { guard: 'stopRefused', target: 'deciding', actions: 'refuseStop' },
          { target: 'ending', actions: 'allowStop' },
        ],
        'turn.cancel': { target: 'ending', actions: 'cancelBeforeStep' },
      },
    }),
    ...compactionStates,
    preStep: {
      entry: 'claimPending',
      initial: 'choosing',
      states: {
        choosing: {
          always: [
            { guard: 'preStepDue', target: 'hook', actions: assign({ toolsChanged: false }) },
            { target: '#turn.stepping', actions: 'beginStep' },
          ],
        },
        hook: waitState(chart, {
          src: 'preStepHook',
          id: 'hook',
          input: ({ context: { agentKey, turn, stepCount } }) => ({ agentKey, turn, step: stepCount + 1 }),
          on: {
            'hook.allow': { target: '#turn.stepping', actions: ['applyTools', 'beginStep'] },
            'hook.veto': { target: '#turn.ending', actions: ['applyTools', 'vetoStep'] },
            'turn.cancel': { target: '#turn.ending', actions: 'cancelBeforeStep' },
          },
        }),
      },
    },
    // The step was begun (`beginStep`) or resumed (`turn.resume`) by the transition that led here.
    stepping: {
      on: {
        'step.done': { target: 'deciding', actions: 'recordStep' },
        'turn.cancel': { actions: 'cancelStep' },
      },
    },
    // Tried in order: what ends the turn, then a compaction the host asked for, then the limits, then a
    // compaction the window asks for before the next step, then the step, then the background children
    // the turn still waits for, then the check of a typed turn's final answer.
    deciding: {
      always: [
        { guard: 'canceled', target: 'ending', actions: assign({ reason: 'canceled' as const }) },
        { guard: 'modelError', target: 'ending', actions: assign({ reason: 'model_error' as const }) },
        { guard: 'compactRequested', target: 'compactionBegins' },
        { guard: 'maxTokens', target: 'ending', actions: assign({ reason: 'max_tokens' as const }) },
        {
          guard: 'unknownToolLimit',
          target: 'ending',
          actions: assign({ reason: 'unknown_tool_limit' as const }),
        },
        { guard: 'stepLimit', target: 'ending', actions: assign({ reason: 'max_steps' as const }) },
        { guard: 'compactionDue', target: 'compactionBegins' },
        { guard: 'anotherStep', target: 'preStep' },
        { guard: 'owesAgents', target: 'waitingForAgents' },
        { guard: 'outputDue', target: 'checkingOutput' },
        { guard: 'stopHooksDue', target: 'stopping' },
        { target: 'ending', actions: assign({ reason: 'completed' as const }) },
      ],
    },
    // The model is done, but background children it started (with `wait`) have not reported: their
    // results, a message, or a child stopped sends the turn back to deciding; nothing is logged here. The
    // log is flushed on the way in: a wait may be long, and a crash during it must find the model's answer
    // (resume then goes on waiting, `turn.resumeWaiting`).
    waitingForAgents: waitState(chart, {
      src: 'logFlush',
      id: 'flush',
      input: ({ context }) => ({ agentKey: context.agentKey }),
      on: {
        'inbox.nextStep': { target: 'deciding', actions: 'holdNextStep' },
        'agents.heard': { target: 'deciding', actions: 'hearAgent' },
        'turn.cancel': { target: 'ending', actions: 'cancelBeforeStep' },
      },
    }),
    // A typed turn's final answer is checked against its output schema: valid, it may end the turn; invalid,
    // the model is told why and answers again, until the retries run out and the turn ends `invalid_output`.
    checkingOutput: waitState(chart, {
      src: 'outputCheck',
      id: 'check',
      input: ({ context: { agentKey, turn, stepCount, output } }) => ({
        agentKey,
        turn,
        step: stepCount,
        attempt: output!.failures + 1,
        inboxId: output!.request.inboxId,
        schema: output!.request.schema,
      }),
      on: {
        'output.checked': [
          { guard: 'outputValid', target: 'deciding', actions: ['logOutputCheck', 'acceptOutput'] },
          { guard: 'outputRetriesLeft', target: 'deciding', actions: ['logOutputCheck', 'retryOutput'] },
          { target: 'ending', actions: ['logOutputCheck', 'rejectOutput'] },
        ],
        'turn.cancel': { target: 'ending', actions: 'cancelBeforeStep' },
      },
    }),
    // `turn.end` is durable before the agent hears the turn is over.
    ending: waitState(chart, {
      src: 'logFlush',
      id: 'flush',
      input: ({ context }) => ({ agentKey: context.agentKey }),
      before: ['settleUnserved', { type: 'log', params: ({ context }) => turnEndEntry(context) }],
      on: { 'log.flushed': 'done', 'turn.cancel': { actions: 'clearPendingIfAsked' } },
    }),
    done: { type: 'final' },
  },
  output: ({ context }) => turnOutput(context),
});
