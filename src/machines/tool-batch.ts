import { assign, enqueueActions, fromCallback, setup } from 'xstate';
import type { ToolOutcome } from '../session/types.ts';
import { type LogEntry, logNothing } from './log-entry.ts';
import { allCommitted, type BatchCall, callsToBegin, callsToCommit } from './tool-batch-plan.ts';

/** The check of one call before anything runs: validation, known tool, permission. */
export type CallCheck = {
  callId: string;
  /** Validated (parsed) input when valid; the raw input otherwise. */
  input: unknown;
  safe: boolean;
  verdict: 'run' | 'ask' | 'reject';
  /** For `reject`: the synthetic result the model reads. */
  outcome?: 'error' | 'denied';
  content?: string;
  unknownTool?: boolean;
  /** The permission decision, when one was made (valid calls only). */
  decision?: { outcome: 'allow' | 'deny'; by: 'rule' | 'mode' | 'session' | 'headless'; reason: string };
};

export type ToolBatchInput = {
  calls: { id: string; name: string; input: unknown }[];
  turn: number;
  step: number;
  maxParallel: number;
};

export type ToolBatchEvent =
  | { type: 'batch.checked'; checks: CallCheck[] }
  | { type: 'tool.settled'; callId: string; outcome: ToolOutcome; content: string; error?: string }
  | { type: 'tool.approve'; callId: string; remember?: 'session'; by?: 'host' | 'user' }
  | { type: 'tool.deny'; callId: string; reason?: string; by?: 'host' | 'user' }
  | { type: 'batch.cancel' };

export type ToolBatchContext = {
  turn: number;
  step: number;
  maxParallel: number;
  calls: BatchCall[];
  unknownTools: number;
};

/** The batch's output, once every call has exactly one committed result. */
export type BatchOutput = { results: number; unknownTools: number; calls: number };

/** What the parent step receives when the batch reaches its final state. */
export type BatchDoneEvent = { type: 'xstate.done.actor.batch'; output: BatchOutput };

type Meta = { turn: number; step: number };

function settleCall(
  calls: BatchCall[],
  callId: string,
  result: { outcome: ToolOutcome; content: string; error?: string },
): BatchCall[] {
  return calls.map((call) =>
    call.callId === callId && call.phase !== 'settled' ? { ...call, phase: 'settled', ...result } : call,
  );
}

/**
 * One batch of tool calls from one model response. Calls are checked, begun in model order (safe calls
 * side by side, everything else alone), and their results committed to the log in model order however
 * they finish. A cancel begins nothing new, aborts what runs and gives every call that never began an
 * `aborted_before_start` result: every `tool.call` gets exactly one `tool.result` on every path.
 */
export const toolBatchMachine = setup({
  types: {} as {
    context: ToolBatchContext;
    events: ToolBatchEvent;
    input: ToolBatchInput;
    output: BatchOutput;
  },
  actors: {
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    toolCheck: fromCallback<{ type: 'noop' }, { calls: ToolBatchInput['calls'] }>(() => {}),
    toolCall: fromCallback<{ type: 'tool.abort' }, { callId: string; name: string; input: unknown } & Meta>(
      () => {},
    ),
    approval: fromCallback<{ type: 'noop' }, { callId: string; name: string; input: unknown }>(() => {}),
  },
  actions: {
    log: logNothing,
    /** Writes every settled result that is next in model order, then marks it committed. */
    commitResults: enqueueActions(({ context, enqueue }) => {
      const indexes = callsToCommit(context.calls);
      if (indexes.length === 0) return;
      for (const index of indexes) {
        const call = context.calls[index]!;
        enqueue({
          type: 'log',
          params: {
            type: 'tool.result',
            turn: context.turn,
            step: context.step,
            data: {
              callId: call.callId,
              outcome: call.outcome!,
              content: call.content ?? '',
              ...(call.error !== undefined ? { error: call.error } : {}),
            },
          } satisfies LogEntry,
        });
      }
      const committed = new Set(indexes);
      enqueue.assign({
        calls: context.calls.map((call, i) => (committed.has(i) ? { ...call, committed: true } : call)),
      });
    }),
    /** Begins every call the plan allows now: asks for approval or starts the tool. */
    beginCalls: enqueueActions(({ context, enqueue }) => {
      const indexes = callsToBegin(context.calls, context.maxParallel);
      if (indexes.length === 0) return;
      const meta = { turn: context.turn, step: context.step };
      const begun = new Map<number, BatchCall['phase']>();
      for (const index of indexes) {
        const call = context.calls[index]!;
        if (call.verdict === 'ask') {
          enqueue({
            type: 'log',
            params: { type: 'approval.asked', ...meta, data: { callId: call.callId } },
          });
          enqueue.spawnChild('approval', {
            id: `approval:${call.callId}`,
            input: { callId: call.callId, name: call.name, input: call.input },
          });
          begun.set(index, 'awaitingApproval');
        } else {
          enqueue({ type: 'log', params: { type: 'tool.started', ...meta, data: { callId: call.callId } } });
          enqueue.spawnChild('toolCall', {
            id: `call:${call.callId}`,
            input: { callId: call.callId, name: call.name, input: call.input, ...meta },
          });
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
    isAwaitingApproval: ({ context, event }) =>
      'callId' in event &&
      context.calls.some((c) => c.callId === event.callId && c.phase === 'awaitingApproval'),
  },
}).createMachine({
  id: 'toolBatch',
  context: ({ input }) => ({
    turn: input.turn,
    step: input.step,
    maxParallel: Math.max(1, input.maxParallel),
    unknownTools: 0,
    calls: input.calls.map((call) => ({
      callId: call.id,
      name: call.name,
      input: call.input,
      safe: false,
      verdict: 'run' as const,
      phase: 'pending' as const,
      committed: false,
    })),
  }),
  initial: 'checking',
  states: {
    checking: {
      entry: [
        enqueueActions(({ context, enqueue }) => {
          for (const call of context.calls) {
            enqueue({
              type: 'log',
              params: {
                type: 'tool.call',
                turn: context.turn,
                step: context.step,
                data: { callId: call.callId, name: call.name, input: call.input },
              },
            });
          }
        }),
        enqueueActions(({ context, enqueue }) => {
          enqueue.spawnChild('toolCheck', {
            id: 'check',
            input: { calls: context.calls.map((c) => ({ id: c.callId, name: c.name, input: c.input })) },
          });
        }),
      ],
      on: {
        'batch.checked': {
          target: 'running',
          actions: [
            enqueueActions(({ context, event, enqueue }) => {
              enqueue.stopChild('check');
              const byId = new Map(event.checks.map((check) => [check.callId, check]));
              for (const check of event.checks) {
                if (!check.decision) continue;
                enqueue({
                  type: 'log',
                  params: {
                    type: 'approval.decided',
                    turn: context.turn,
                    step: context.step,
                    data: {
                      callId: check.callId,
                      outcome: check.decision.outcome,
                      by: check.decision.by,
                      reason: check.decision.reason,
                    },
                  },
                });
              }
              enqueue.assign({
                unknownTools: event.checks.filter((check) => check.unknownTool).length,
                calls: context.calls.map((call) => {
                  const check = byId.get(call.callId);
                  if (!check) {
                    return {
                      ...call,
                      phase: 'settled',
                      outcome: 'error',
                      content: 'internal: the call was not checked',
                    };
                  }
                  const checked = { ...call, input: check.input, safe: check.safe, verdict: check.verdict };
                  return check.verdict === 'reject'
                    ? {
                        ...checked,
                        phase: 'settled',
                        outcome: check.outcome ?? 'error',
                        content: check.content ?? '',
                      }
                    : checked;
                }),
              });
            }),
            'commitResults',
            'beginCalls',
          ],
        },
        'batch.cancel': {
          target: 'cancelling',
          actions: enqueueActions(({ enqueue }) => enqueue.stopChild('check')),
        },
      },
    },
    running: {
      always: [
        { guard: 'allCommitted', target: 'done' },
        { guard: 'awaitingApproval', target: 'awaitingApproval' },
      ],
      on: {
        'tool.settled': {
          actions: [
            enqueueActions(({ event, enqueue }) => enqueue.stopChild(`call:${event.callId}`)),
            assign({ calls: ({ context, event }) => settleCall(context.calls, event.callId, event) }),
            'commitResults',
            'beginCalls',
          ],
        },
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
              const meta = { turn: context.turn, step: context.step };
              enqueue.stopChild(`approval:${call.callId}`);
              const outcome = event.remember === 'session' ? 'allow_session' : 'allow';
              enqueue({
                type: 'log',
                params: {
                  type: 'approval.decided',
                  ...meta,
                  data: { callId: call.callId, outcome, by: event.by ?? 'user' },
                },
              });
              enqueue({
                type: 'log',
                params: { type: 'tool.started', ...meta, data: { callId: call.callId } },
              });
              enqueue.spawnChild('toolCall', {
                id: `call:${call.callId}`,
                input: { callId: call.callId, name: call.name, input: call.input, ...meta },
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
              enqueue({
                type: 'log',
                params: {
                  type: 'approval.decided',
                  turn: context.turn,
                  step: context.step,
                  data: { callId: event.callId, outcome: 'deny', by: event.by ?? 'user', reason },
                },
              });
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
          const calls = context.calls.map((call): BatchCall => {
            if (call.phase === 'pending') {
              return {
                ...call,
                phase: 'settled',
                outcome: 'aborted_before_start',
                content: 'Canceled before it started.',
              };
            }
            if (call.phase === 'awaitingApproval') {
              enqueue.stopChild(`approval:${call.callId}`);
              return {
                ...call,
                phase: 'settled',
                outcome: 'aborted',
                content: 'Canceled while waiting for approval.',
              };
            }
            // Running calls are told to abort and report back; their result is still committed.
            if (call.phase === 'running') enqueue.sendTo(`call:${call.callId}`, { type: 'tool.abort' });
            return call;
          });
          enqueue.assign({ calls });
        }),
        'commitResults',
      ],
      always: { guard: 'allCommitted', target: 'done' },
      on: {
        'tool.settled': {
          actions: [
            enqueueActions(({ event, enqueue }) => enqueue.stopChild(`call:${event.callId}`)),
            assign({ calls: ({ context, event }) => settleCall(context.calls, event.callId, event) }),
            'commitResults',
          ],
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({
    results: context.calls.filter((call) => call.committed).length,
    unknownTools: context.unknownTools,
    calls: context.calls.length,
  }),
});
