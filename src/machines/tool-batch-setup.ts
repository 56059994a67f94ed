// The tool batch chart's setup: the actors it spawns (placeholders the runtime replaces through
// `provide()`), and the named actions and guards its states refer to. The state tree is in `tool-batch.ts`.
import { assertEvent, assign, enqueueActions, fromCallback, sendTo, setup } from 'xstate';
import type { AgentKeyed } from './agent-key.ts';
import { logNothing } from './log-action.ts';
import { parentOf } from './parent.ts';
import {
  answerEntry,
  batchOutput,
  type CallInput,
  callEntry,
  checkCommand,
  checkedBatch,
  entryAt,
  resultEntry,
  toolCallInput,
} from './tool-batch-entries.ts';
import {
  applyPreToolVerdicts,
  type HookCallInput,
  holdResult,
  hookEntries,
  hookInput,
  releaseHeld,
} from './tool-batch-hooks.ts';
import {
  allCommitted,
  type BatchCall,
  callsToBegin,
  callsToCommit,
  newCalls,
  resumedCalls,
  settleCall,
  settleUnbegun,
  withPhase,
} from './tool-batch-plan.ts';
import type {
  BatchDoneEvent,
  ToolBatchContext,
  ToolBatchEvent,
  ToolBatchInput,
  ToolCheckCommand,
} from './tool-batch-types.ts';

/** What the hook actors of the batch are started with. */
type HookMeta = AgentKeyed & { turn: number; step: number };

export const toolBatchSetup = setup({
  types: {} as { context: ToolBatchContext; events: ToolBatchEvent; input: ToolBatchInput },
  actors: {
    // Placeholders: the runtime provides the real I/O actors (src/actors) through `provide()`.
    toolCheck: fromCallback<ToolCheckCommand, AgentKeyed>(() => {}),
    toolCall: fromCallback<{ type: 'tool.abort' }, CallInput & { turn: number; step: number }>(() => {}),
    approval: fromCallback<{ type: 'noop' }, CallInput>(() => {}),
    logFlush: fromCallback<{ type: 'noop' }, AgentKeyed>(() => {}),
    preToolHook: fromCallback<{ type: 'noop' }, HookMeta & { calls: HookCallInput[] }>(() => {}),
    postToolHook: fromCallback<
      { type: 'noop' },
      HookMeta & HookCallInput & { content: string; isError: boolean }
    >(() => {}),
  },
  actions: {
    log: logNothing,
    beginBatch: assign(({ event }) => {
      assertEvent(event, 'batch.begin');
      return { step: event.step, unknownTools: 0, calls: newCalls(event.calls) };
    }),
    /** A batch a stopped process left: its calls as the log holds them. */
    resumeBatch: assign(({ event }) => {
      assertEvent(event, 'batch.resume');
      return { step: event.step, unknownTools: 0, calls: resumedCalls(event.calls) };
    }),
    logCalls: enqueueActions(({ context, enqueue }) => {
      for (const call of context.calls) enqueue({ type: 'log', params: callEntry(context, call) });
    }),
    checkCalls: sendTo('check', ({ context }) => checkCommand(context)),
    /** Writes every settled result that is next in model order, then marks it committed. */
    commitResults: enqueueActions(({ context, enqueue }) => {
      const indexes = callsToCommit(context.calls);
      if (indexes.length === 0) return;
      for (const index of indexes)
        enqueue({ type: 'log', params: resultEntry(context, context.calls[index]!) });
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
    /** Logs the check's decisions and applies them to the calls. */
    recordChecks: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'batch.checked');
      const { entries, ...update } = checkedBatch(context, event.checks, false);
      for (const entry of entries) enqueue({ type: 'log', params: entry });
      enqueue.assign(update);
    }),
    /** The same for a resumed batch: only decisions its log lacks are logged, and logged ones stand. */
    recordResumeChecks: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'batch.checked');
      const { entries, ...update } = checkedBatch(context, event.checks, true);
      for (const entry of entries) enqueue({ type: 'log', params: entry });
      enqueue.assign(update);
    }),
    /** Begins every call the plan allows now: logs the question of one that needs approval, or starts the tool. */
    beginCalls: enqueueActions(({ context, enqueue }) => {
      const indexes = callsToBegin(context.calls, context.maxParallel);
      if (indexes.length === 0) return;
      const begun = new Map<number, BatchCall['phase']>();
      for (const index of indexes) {
        const call = context.calls[index]!;
        if (call.verdict === 'ask') {
          // Asked in `awaitingApproval.asking`, once this entry is durable.
          enqueue({ type: 'log', params: entryAt(context, 'approval.asked', { callId: call.callId }) });
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
    /** Runs again the calls whose subagent waits too (their `tool.started` is in the log already). */
    rejoinCalls: enqueueActions(({ context, enqueue }) => {
      for (const call of context.calls.filter((c) => c.rejoin && c.phase === 'running'))
        enqueue.spawnChild('toolCall', { id: `call:${call.callId}`, input: toolCallInput(context, call) });
    }),
    askApprovals: enqueueActions(({ context, enqueue }) => {
      for (const call of context.calls) {
        if (call.phase !== 'awaitingApproval') continue;
        const input = { ...toolCallInput(context, call), agentKey: context.agentKey };
        enqueue.spawnChild('approval', { id: `approval:${call.callId}`, input });
      }
    }),
    /** Logs what the `preTool` hooks decided and applies it: denials settle, rewritten inputs stand. */
    recordPreToolHooks: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.preTool');
      for (const verdict of event.verdicts) {
        for (const entry of hookEntries(context, verdict.decisions)) enqueue({ type: 'log', params: entry });
        if (verdict.decision)
          enqueue({
            type: 'log',
            params: entryAt(context, 'approval.decided', { callId: verdict.callId, ...verdict.decision }),
          });
      }
      enqueue.assign({ calls: applyPreToolVerdicts(context.calls, event.verdicts) });
    }),
    /** A finished call waits for its `postTool` hooks with its result held back; its tool actor is done. */
    holdForPostHooks: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'tool.settled');
      const call = context.calls.find((c) => c.callId === event.callId)!;
      const { outcome, content, error } = event;
      enqueue.stopChild(`call:${event.callId}`);
      enqueue.assign({
        calls: holdResult(context.calls, event.callId, { outcome, content, ...(error ? { error } : {}) }),
      });
      const input = { ...hookInput(context, call), content, isError: outcome !== 'ok' };
      enqueue.spawnChild('postToolHook', { id: `post:${call.callId}`, input });
    }),
    /** The `postTool` hooks answered: their decisions are logged and the result they left settles the call. */
    settleHooked: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'hook.postTool');
      const call = context.calls.find((c) => c.callId === event.callId && c.phase === 'postHooking');
      if (!call?.held) return;
      enqueue.stopChild(`post:${call.callId}`);
      for (const entry of hookEntries(context, event.decisions)) enqueue({ type: 'log', params: entry });
      const { held } = call;
      const settled = {
        ...call,
        phase: 'settled' as const,
        ...held,
        content: event.content,
        held: undefined,
      };
      enqueue.assign({ calls: context.calls.map((c) => (c.callId === call.callId ? settled : c)) });
    }),
    /** On cancel, `postTool` hooks still running are stopped and their calls keep the tool's own result. */
    stopPostHooks: enqueueActions(({ context, enqueue }) => {
      for (const call of context.calls)
        if (call.phase === 'postHooking') enqueue.stopChild(`post:${call.callId}`);
      enqueue.assign({ calls: releaseHeld(context.calls) });
    }),
    /** A person or the host allowed the call: the answer is logged and the tool starts. */
    runApproved: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'tool.approve');
      const call = context.calls.find((c) => c.callId === event.callId)!;
      const input = toolCallInput(context, call);
      enqueue({ type: 'log', params: answerEntry(context, event) });
      enqueue({ type: 'log', params: entryAt(context, 'tool.started', { callId: call.callId }) });
      enqueue.spawnChild('toolCall', { id: `call:${call.callId}`, input });
      enqueue.assign({ calls: withPhase(context.calls, call.callId, 'running') });
    }),
    /** A denied call settles with the reason as its result, which the model reads. */
    denyCall: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'tool.deny');
      const reason = event.reason ?? 'the user denied this call';
      enqueue({ type: 'log', params: answerEntry(context, event, reason) });
      const denied = { outcome: 'denied' as const, content: `Permission denied: ${reason}` };
      enqueue.assign({ calls: settleCall(context.calls, event.callId, denied) });
    }),
    /** Running calls are told to abort and report back (their result is still committed); the rest settle. */
    abortCalls: enqueueActions(({ context, enqueue }) => {
      for (const call of context.calls)
        if (call.phase === 'running') enqueue.sendTo(`call:${call.callId}`, { type: 'tool.abort' });
      enqueue.assign({ calls: settleUnbegun(context.calls) });
    }),
    /** Every call has its result: the step hears how the batch ended. */
    reportBatch: sendTo(
      parentOf,
      ({ context }): BatchDoneEvent => ({ type: 'batch.done', output: batchOutput(context) }),
    ),
    stopAsking: enqueueActions(({ context, enqueue }) => {
      for (const call of context.calls)
        if (call.phase === 'awaitingApproval') enqueue.stopChild(`approval:${call.callId}`);
    }),
  },
  guards: {
    /** The check left calls that may run, and `preTool` hooks are configured: they are asked first. */
    preToolHooksDue: ({ context, event }) => {
      assertEvent(event, 'batch.checked');
      return context.hooks.preTool === true && event.checks.some((check) => check.verdict !== 'reject');
    },
    /** A call that ran (ok or error) waits for the `postTool` hooks before its result is committed. */
    postToolHooksDue: ({ context, event }) => {
      assertEvent(event, 'tool.settled');
      const running = context.calls.some((c) => c.callId === event.callId && c.phase === 'running');
      return (
        context.hooks.postTool === true && running && (event.outcome === 'ok' || event.outcome === 'error')
      );
    },
    allCommitted: ({ context }) => allCommitted(context.calls),
    awaitingApproval: ({ context }) => context.calls.some((call) => call.phase === 'awaitingApproval'),
    isAwaitingApproval: ({ context, event }) => {
      assertEvent(event, ['tool.approve', 'tool.deny']);
      return context.calls.some((c) => c.callId === event.callId && c.phase === 'awaitingApproval');
    },
  },
});
