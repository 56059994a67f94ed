import { spawnChild } from 'xstate';
import { hookableCalls } from './tool-batch-hooks.ts';
import { toolBatchSetup as chart } from './tool-batch-setup.ts';
import { waitState } from './wait-state.ts';

export type {
  BatchBeginEvent,
  BatchDoneEvent,
  BatchOutput,
  CallCheck,
  ToolBatchContext,
  ToolBatchEvent,
  ToolBatchInput,
  ToolCheckCommand,
} from './tool-batch-types.ts';

/**
 * One batch of tool calls from one model response. Calls are checked, begun in model order (safe calls
 * side by side, everything else alone), and their results committed to the log in model order however
 * they finish. A cancel begins nothing new, aborts what runs and gives every call that never began an
 * `aborted_before_start` result: every `tool.call` gets exactly one `tool.result` on every path.
 * The actor lives as long as its turn and waits in `idle` between batches; each call is its own child.
 *
 * Waiting for a person is durable: `awaitingApproval` flushes the log (`persisting`) before anyone is
 * asked (`asking`), so a process that stops while it waits loses nothing, and `batch.resume` continues
 * such a batch in a new process from what the log holds (`resuming`): the same question is asked again.
 *
 * Hooks are waits too: with `preTool` hooks the batch waits in `hooking` until they have decided about
 * every call that may run (deny, ask, allow, rewrite the input); with `postTool` hooks a finished call
 * holds its result back (`postHooking`) until they have answered. A cancel stops them: no result is lost.
 *
 * The flow: `idle` → `checking` (or `resuming`) → (`hooking`) → `running` ⇄ `awaitingApproval` → `done`
 * → `idle`; a cancel from any of them goes through `cancelling` to `done`.
 */
export const toolBatchMachine = chart.createMachine({
  id: 'toolBatch',
  context: ({ input }) => ({
    agentKey: input.agentKey,
    turn: input.turn,
    step: 0,
    maxParallel: Math.max(1, input.maxParallel),
    unknownTools: 0,
    calls: [],
    hooks: input.hooks ?? {},
  }),
  // Spawned once per turn: the check actor answers every batch of the turn.
  entry: spawnChild('toolCheck', { id: 'check', input: ({ context }) => ({ agentKey: context.agentKey }) }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        'batch.begin': { target: 'checking', actions: 'beginBatch' },
        'batch.resume': { target: 'resuming', actions: 'resumeBatch' },
      },
    },
    checking: {
      entry: ['logCalls', 'checkCalls'],
      on: {
        'batch.checked': [
          { guard: 'preToolHooksDue', target: 'hooking', actions: ['recordChecks', 'commitResults'] },
          { target: 'running', actions: ['recordChecks', 'commitResults', 'beginCalls'] },
        ],
        // The check answers at once, so this only happens when a cancel was queued before the answer.
        'batch.cancel': 'cancelling',
      },
    },
    // A resumed batch: its calls are in the log already; the ones without a result are checked again.
    resuming: {
      entry: 'checkCalls',
      on: {
        // A crash while the hooks ran left no decision that counts: they are asked again.
        'batch.checked': [
          {
            guard: 'preToolHooksDue',
            target: 'hooking',
            actions: ['recordResumeChecks', 'commitResults', 'rejoinCalls'],
          },
          {
            target: 'running',
            actions: ['recordResumeChecks', 'commitResults', 'rejoinCalls', 'beginCalls'],
          },
        ],
        'batch.cancel': 'cancelling',
      },
    },
    // The `preTool` hooks are asked about every call that may run, in model order, before any begins.
    hooking: waitState(chart, {
      src: 'preToolHook',
      id: 'hook',
      input: ({ context: { agentKey, turn, step, calls } }) => ({
        agentKey,
        turn,
        step,
        calls: hookableCalls(calls),
      }),
      on: {
        'hook.preTool': { target: 'running', actions: ['recordPreToolHooks', 'commitResults', 'beginCalls'] },
        'batch.cancel': 'cancelling',
      },
    }),
    running: {
      always: [
        { guard: 'allCommitted', target: 'done' },
        { guard: 'awaitingApproval', target: 'awaitingApproval' },
      ],
      on: {
        'tool.settled': [
          { guard: 'postToolHooksDue', actions: 'holdForPostHooks' },
          { actions: ['settle', 'commitResults', 'beginCalls'] },
        ],
        'hook.postTool': { actions: ['settleHooked', 'commitResults', 'beginCalls'] },
        'batch.cancel': 'cancelling',
      },
    },
    // A call that needs approval is a barrier: nothing else runs while it waits. The question is durable
    // before anyone is asked; an answer before the flush (to the live `approval.asked`) still counts.
    awaitingApproval: {
      initial: 'persisting',
      exit: 'stopAsking',
      states: {
        persisting: waitState(chart, {
          src: 'logFlush',
          id: 'flush',
          input: ({ context }) => ({ agentKey: context.agentKey }),
          on: { 'log.flushed': 'asking' },
        }),
        asking: { entry: 'askApprovals' },
      },
      on: {
        'tool.approve': { guard: 'isAwaitingApproval', target: 'running', actions: 'runApproved' },
        'tool.deny': {
          guard: 'isAwaitingApproval',
          target: 'running',
          actions: ['denyCall', 'commitResults', 'beginCalls'],
        },
        'batch.cancel': 'cancelling',
      },
    },
    cancelling: {
      entry: ['abortCalls', 'stopPostHooks', 'commitResults'],
      always: { guard: 'allCommitted', target: 'done' },
      on: {
        'tool.settled': { actions: ['settle', 'commitResults'] },
      },
    },
    // Every call has its result: report to the step and wait for the next `batch.begin`.
    done: {
      entry: 'reportBatch',
      always: 'idle',
    },
  },
});
