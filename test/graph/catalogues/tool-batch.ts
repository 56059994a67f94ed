// The tool-batch chart's event catalogue, shared by every tool-batch graph suite: what can happen in each
// state of one batch of `calls`, with sample payloads. The `batch.checked` payload is what the real check
// actor computes for those calls, so the runtime and the chart agree on every verdict.
import type { SnapshotFrom } from 'xstate';
import { checkCall } from '../../../src/actors/tool-check.ts';
import type { PreToolVerdict } from '../../../src/machines/hook-events.ts';
import type { ToolBatchEvent, toolBatchMachine } from '../../../src/machines/tool-batch.ts';
import { AgentPermissionGate } from '../../../src/permissions/gate.ts';
import type { ControlledTool } from '../support/driver.ts';

export type BatchSnapshot = SnapshotFrom<typeof toolBatchMachine>;
export type BatchCall = { id: string; name: string; input: Record<string, unknown> };

/**
 * What the real checker decides for `calls` over `tools`: in mode `default` it asks before writes and a
 * manual approver exists; in `bypass` everything known and valid runs.
 */
export function realChecks(calls: readonly BatchCall[], tools: ControlledTool[], mode: 'default' | 'bypass') {
  const permissions = new AgentPermissionGate({
    mode,
    allow: [],
    deny: [],
    cwd: process.cwd(),
    canAsk: mode === 'default',
  });
  const byName = new Map(tools.map((held) => [held.tool.name, held.tool]));
  return calls.map((call) => checkCall({ tools: byName, permissions }, call));
}

/** `preTool` verdicts for a batch with hooks: every call passes, or `denied` is denied (the rest pass). */
export function preToolVerdicts(calls: readonly BatchCall[], denied: string): PreToolVerdict[][] {
  const decision = (callId: string, outcome: 'pass' | 'deny') => ({
    point: 'preTool' as const,
    hook: 'hold',
    outcome,
    callId,
  });
  const pass = (callId: string): PreToolVerdict => ({ callId, decisions: [decision(callId, 'pass')] });
  const deny = (callId: string): PreToolVerdict => ({
    ...{ callId, decisions: [decision(callId, 'deny')] },
    ...{ verdict: 'reject', outcome: 'denied', content: 'no' },
  });
  return [
    calls.map((call) => pass(call.id)),
    calls.map((call) => (call.id === denied ? deny : pass)(call.id)),
  ];
}

export type BatchCatalogue = {
  calls: readonly BatchCall[];
  checks: ReturnType<typeof realChecks>;
  /** With `preTool` hooks: the verdicts a `hooking` batch may get. */
  preTool?: PreToolVerdict[][];
};

/** The catalogue: what can happen in each state, with sample payloads. */
export function toolBatchEvents({ calls, checks, preTool = [] }: BatchCatalogue) {
  return (snapshot: BatchSnapshot): ToolBatchEvent[] => {
    const tracked = snapshot.context.calls;
    const running = tracked.filter((call) => call.phase === 'running');
    // One batch per path: begun once, over when the actor is back in idle.
    if (snapshot.matches('idle'))
      return snapshot.context.step === 0 ? [{ type: 'batch.begin', step: 1, calls: [...calls] }] : [];
    // The real check answers in the macrostep that starts the batch, so nothing else can arrive in
    // `checking`; a cancel there is covered by the pure unit test (test/machines/tool-batch.test.ts).
    if (snapshot.matches('checking')) return [{ type: 'batch.checked', checks }];
    if (snapshot.matches('hooking'))
      return [
        ...preTool.map((verdicts) => ({ type: 'hook.preTool' as const, verdicts })),
        { type: 'batch.cancel' },
      ];
    if (snapshot.matches('cancelling'))
      return running.map((call) => ({
        type: 'tool.settled',
        callId: call.callId,
        outcome: 'aborted',
        content: '',
      }));
    // The question is made durable before anyone is asked: nothing but the flush happens meanwhile (an
    // answer that beats the flush is covered by the pure unit test).
    if (snapshot.matches({ awaitingApproval: 'persisting' })) return [{ type: 'log.flushed' }];
    // A call that needs approval is a barrier: in `awaitingApproval` nothing else runs.
    if (!snapshot.matches('running') && !snapshot.matches('awaitingApproval')) return [];
    return [
      ...running.map(
        (call): ToolBatchEvent => ({ type: 'tool.settled', callId: call.callId, outcome: 'ok', content: '' }),
      ),
      ...tracked
        .filter((call) => call.phase === 'postHooking')
        .map(
          (call): ToolBatchEvent => ({
            type: 'hook.postTool',
            callId: call.callId,
            decisions: [],
            content: 'post',
          }),
        ),
      ...tracked
        .filter((call) => call.phase === 'awaitingApproval')
        .flatMap((call): ToolBatchEvent[] => [
          { type: 'tool.approve', callId: call.callId },
          { type: 'tool.deny', callId: call.callId, reason: 'not now' },
        ]),
      { type: 'batch.cancel' },
    ];
  };
}

/** Bounded key: state value plus each call's phase, outcome and whether it is committed. */
export function serializeBatch(snapshot: BatchSnapshot): string {
  const calls = snapshot.context.calls.map(
    (call) => `${call.callId}:${call.phase}:${call.outcome ?? ''}:${call.committed ? 'committed' : ''}`,
  );
  return JSON.stringify([snapshot.value, calls]);
}

export function describeBatchEvent(event: ToolBatchEvent): string {
  if (event.type === 'hook.preTool') {
    const denied = event.verdicts.find((verdict) => verdict.verdict === 'reject');
    return denied ? `hook.preTool(deny ${denied.callId})` : 'hook.preTool(pass)';
  }
  return 'callId' in event ? `${event.type}(${event.callId})` : event.type;
}

/** The batch has committed every result and reported (its actor waits in idle for the next one). */
export const batchFinished = (snapshot: BatchSnapshot) =>
  snapshot.matches('idle') && snapshot.context.step > 0;
