import { assertEvent, assign, enqueueActions, fromCallback, sendTo, setup } from 'xstate';
import type { LogEntry, LogEventData } from '../session/types.ts';
import type { AgentKeyed } from './agent-key.ts';
import { logNothing } from './log-action.ts';
import { parentOf } from './parent.ts';
import {
  allCommitted,
  applyChecks,
  type BatchCall,
  callsToBegin,
  callsToCommit,
  settleCall,
  settleUnbegun,
} from './tool-batch-plan.ts';
import type {
  BatchDoneEvent,
  ToolBatchContext,
  ToolBatchEvent,
  ToolBatchInput,
  ToolCheckCommand,
} from './tool-batch-types.ts';

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

type Meta = { turn: number; step: number };
type CallInput = AgentKeyed & { callId: string; name: string; input: unknown };

/** A log entry of this batch's step. */
function entryAt<
  Type extends 'tool.call' | 'tool.started' | 'tool.result' | 'approval.asked' | 'approval.decided',
>(context: Meta, type: Type, data: LogEventData[Type]): LogEntry {
  return { type, turn: context.turn, step: context.step, data } as LogEntry;
}

const toolCallInput = (context: ToolBatchContext, call: BatchCall): CallInput & Meta => ({
  agentKey: context.agentKey,
  callId: call.callId,
  name: call.name,
  input: call.input,
  turn: context.turn,
  step: context.step,
});

/**
 * One batch of tool calls from one model response. Calls are checked, begun in model order (safe calls
 * side by side, everything else alone), and their results committed to the log in model order however
 * they finish. A cancel begins nothing new, aborts what runs and gives every call that never began an
 * `aborted_before_start` result: every `tool.call` gets exactly one `tool.result` on every path.
 * The actor lives as long as its turn and waits in `idle` between batches; each call is its own child.
 */
export const toolBatchMachine = setup({
  types: {} as { context: ToolBatchContext; events: ToolBatchEvent; input: ToolBatchInput },
  actors: {
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    toolCheck: fromCallback<ToolCheckCommand, AgentKeyed>(() => {}),
    toolCall: fromCallback<{ type: 'tool.abort' }, CallInput & Meta>(() => {}),
    approval: fromCallback<{ type: 'noop' }, CallInput>(() => {}),
  },
  actions: {
    log: logNothing,
    /** Writes every settled result that is next in model order, then marks it committed. */
    commitResults: enqueueActions(({ context, enqueue }) => {
      const indexes = callsToCommit(context.calls);
      if (indexes.length === 0) return;
      for (const index of indexes) {
        const { callId, outcome, content, error } = context.calls[index]!;
        const data = {
          callId,
          outcome: outcome!,
          content: content ?? '',
          ...(error !== undefined ? { error } : {}),
        };
        enqueue({ type: 'log', params: entryAt(context, 'tool.result', data) });
      }
      const committed = new Set(indexes);
      enqueue.assign({
        calls: context.calls.map((call, i) => (committed.has(i) ? { ...call, committed: true } : call)),
      });
    }),
    /** A call reported its result: its actor is done, and the result waits for its turn to be committed. */
    settle: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'tool.settled');
      enqueue.stopChild(`call:${event.callId}`);
      enqueue.assign({ calls: settleCall(context.calls, event.callId, event) });
    }),
    /** Begins every call the plan allows now: asks for approval or starts the tool. */
    beginCalls: enqueueActions(({ context, enqueue }) => {
      const indexes = callsToBegin(context.calls, context.maxParallel);
      if (indexes.length === 0) return;
      const begun = new Map<number, BatchCall['phase']>();
      for (const index of indexes) {
        const call = context.calls[index]!;
        if (call.verdict === 'ask') {
          enqueue({ type: 'log', params: entryAt(context, 'approval.asked', { callId: call.callId }) });
          enqueue.spawnChild('approval', {
            id: `approval:${call.callId}`,
            input: { agentKey: context.agentKey, callId: call.callId, name: call.name, input: call.input },
          });
          begun.set(index, 'awaitingApproval');
        } else {
          enqueue({ type: 'log', params: entryAt(context, 'tool.started', { callId: call.callId }) });
          enqueue.spawnChild('toolCall', { id: `call:${call.callId}`, input: toolCallInput(context, call) });
          begun.set(index, 'running');
        }
      }
      enqueue.assign({
        calls: context.calls.map((call, i) => ({ ...call, phase: begun.get(i) ?? call.phase })),
      });
    }),
  },
  guards: {
    allCommitted: ({ context }) => allCommitted(context.calls),
    awaitingApproval: ({ context }) => context.calls.some((call) => call.phase === 'awaitingApproval'),
    isAwaitingApproval: ({ context, event }) => {
      assertEvent(event, ['tool.approve', 'tool.deny']);
      return context.calls.some((c) => c.callId === event.callId && c.phase === 'awaitingApproval');
    },
  },
}).createMachine({
  id: 'toolBatch',
  context: ({ input }) => ({
    agentKey: input.agentKey,
    turn: input.turn,
    step: 0,
    maxParallel: Math.max(1, input.maxParallel),
    unknownTools: 0,
    calls: [],
  }),
  // Spawned once per turn: the check actor answers every batch of the turn.
  entry: enqueueActions(({ context, enqueue }) =>
    enqueue.spawnChild('toolCheck', { id: 'check', input: { agentKey: context.agentKey } }),
  ),
  initial: 'idle',
  states: {
    idle: {
      on: {
        'batch.begin': {
          target: 'checking',
          actions: assign(({ event }) => ({
            step: event.step,
            unknownTools: 0,
            calls: event.calls.map((call) => ({
              callId: call.id,
              name: call.name,
              input: call.input,
              safe: false,
              verdict: 'run' as const,
              phase: 'pending' as const,
              committed: false,
            })),
          })),
        },
      },
    },
    checking: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (const { callId, name, input } of context.calls) {
          enqueue({ type: 'log', params: entryAt(context, 'tool.call', { callId, name, input }) });
        }
        const calls = context.calls.map((c) => ({ id: c.callId, name: c.name, input: c.input }));
        enqueue.sendTo('check', { type: 'check', calls });
      }),
      on: {
        'batch.checked': {
          target: 'running',
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              for (const { callId, decision } of event.checks) {
                if (!decision) continue;
                const data = { callId, outcome: decision.outcome, by: decision.by, reason: decision.reason };
                enqueue({ type: 'log', params: entryAt(context, 'approval.decided', data) });
              }
              enqueue.assign({
                unknownTools: event.checks.filter((check) => check.unknownTool).length,
                calls: applyChecks(context.calls, event.checks),
              });
            }),
            'commitResults',
            'beginCalls',
          ],
        },
        // The check answers at once, so this only happens when a cancel was queued before the answer.
        'batch.cancel': 'cancelling',
      },
    },
    running: {
      always: [
        { guard: 'allCommitted', target: 'done' },
        { guard: 'awaitingApproval', target: 'awaitingApproval' },
      ],
      on: {
        'tool.settled': { actions: ['settle', 'commitResults', 'beginCalls'] },
        'batch.cancel': 'cancelling',
      },
    },
    // A call that needs approval is a barrier: while it waits, nothing else in the batch runs.
    awaitingApproval: {
      on: {
        'tool.approve': {
          guard: 'isAwaitingApproval',
          target: 'running',
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              const call = context.calls.find((c) => c.callId === event.callId)!;
              enqueue.stopChild(`approval:${call.callId}`);
              const outcome = event.remember === 'session' ? 'allow_session' : 'allow';
              const decided = { callId: call.callId, outcome, by: event.by ?? 'user' } as const;
              enqueue({ type: 'log', params: entryAt(context, 'approval.decided', decided) });
              enqueue({ type: 'log', params: entryAt(context, 'tool.started', { callId: call.callId }) });
              enqueue.spawnChild('toolCall', {
                id: `call:${call.callId}`,
                input: toolCallInput(context, call),
              });
              enqueue.assign({
                calls: context.calls.map((c) =>
                  c.callId === call.callId ? { ...c, phase: 'running' as const } : c,
                ),
              });
            }),
          ],
        },
        'tool.deny': {
          guard: 'isAwaitingApproval',
          target: 'running',
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              enqueue.stopChild(`approval:${event.callId}`);
              const reason = event.reason ?? 'the user denied this call';
              const decided = {
                callId: event.callId,
                outcome: 'deny',
                by: event.by ?? 'user',
                reason,
              } as const;
              enqueue({ type: 'log', params: entryAt(context, 'approval.decided', decided) });
              enqueue.assign({
                calls: settleCall(context.calls, event.callId, {
                  outcome: 'denied',
                  content: `Permission denied: ${reason}`,
                }),
              });
            }),
            'commitResults',
            'beginCalls',
          ],
        },
        'batch.cancel': 'cancelling',
      },
    },
    cancelling: {
      entry: [
        enqueueActions(({ context, enqueue }) => {
          for (const call of context.calls) {
            if (call.phase === 'awaitingApproval') enqueue.stopChild(`approval:${call.callId}`);
            // Running calls are told to abort and report back; their result is still committed.
            if (call.phase === 'running') enqueue.sendTo(`call:${call.callId}`, { type: 'tool.abort' });
          }
          enqueue.assign({ calls: settleUnbegun(context.calls) });
        }),
        'commitResults',
      ],
      always: { guard: 'allCommitted', target: 'done' },
      on: {
        'tool.settled': { actions: ['settle', 'commitResults'] },
      },
    },
    // Every call has its result: report to the step and wait for the next `batch.begin`.
    done: {
      entry: sendTo(
        parentOf,
        ({ context }): BatchDoneEvent => ({
          type: 'batch.done',
          output: {
            results: context.calls.filter((call) => call.committed).length,
            unknownTools: context.unknownTools,
            calls: context.calls.length,
          },
        }),
      ),
      always: 'idle',
    },
  },
});
