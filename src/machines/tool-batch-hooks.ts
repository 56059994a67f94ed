// Pure helpers of the tool batch's hook waits: which calls the `preTool` hooks are asked about, what their
// verdicts change, and the results a `postTool` hook holds back until it has answered.
import type { LogEntry } from '../session/types.ts';
import type { PreToolVerdict } from './hook-events.ts';
import type { BatchCall } from './tool-batch-plan.ts';
import type { ToolBatchContext } from './tool-batch-types.ts';

/** What a hook actor is started with for one call. */
export type HookCallInput = { callId: string; name: string; input: unknown };

/** What a `postTool` hook actor is started with for one call, besides the result. */
export const hookInput = (context: ToolBatchContext, call: HookCallInput) => ({
  agentKey: context.agentKey,
  turn: context.turn,
  step: context.step,
  callId: call.callId,
  name: call.name,
  input: call.input,
});

/** The calls the `preTool` hooks are asked about: pending, checked to run or ask, not already started. */
export function hookableCalls(calls: readonly BatchCall[]): HookCallInput[] {
  return calls
    .filter((call) => call.phase === 'pending' && call.verdict !== 'reject' && !call.rejoin)
    .map(({ callId, name, input }) => ({ callId, name, input }));
}

/** The `hook.decided` entries of a batch's step. */
export function hookEntries(context: ToolBatchContext, decisions: PreToolVerdict['decisions']): LogEntry[] {
  return decisions.map((data) => ({ type: 'hook.decided', turn: context.turn, step: context.step, data }));
}

/** Applies the `preTool` verdicts: a denial settles the call, otherwise its input and verdict may change. */
export function applyPreToolVerdicts(
  calls: readonly BatchCall[],
  verdicts: readonly PreToolVerdict[],
): BatchCall[] {
  const byId = new Map(verdicts.map((verdict) => [verdict.callId, verdict]));
  return calls.map((call): BatchCall => {
    const verdict = byId.get(call.callId);
    if (call.phase !== 'pending' || verdict === undefined) return call;
    const noted = verdict.context !== undefined ? { ...call, context: verdict.context } : call;
    if (!verdict.verdict) return noted;
    const updated = {
      ...noted,
      input: verdict.input ?? call.input,
      safe: verdict.safe ?? false,
      verdict: verdict.verdict,
    };
    if (verdict.verdict !== 'reject') return updated;
    return {
      ...updated,
      phase: 'settled',
      outcome: verdict.outcome ?? 'denied',
      content: verdict.content ?? '',
    };
  });
}

/** A call whose tool finished waits for its `postTool` hooks with its result held back. */
export function holdResult(
  calls: readonly BatchCall[],
  callId: string,
  held: NonNullable<BatchCall['held']>,
): BatchCall[] {
  return calls.map((call) =>
    call.callId === callId && call.phase === 'running' ? { ...call, phase: 'postHooking', held } : call,
  );
}

/** On cancel, a call whose `postTool` hooks were stopped keeps the result its tool gave. */
export function releaseHeld(calls: readonly BatchCall[]): BatchCall[] {
  return calls.map((call): BatchCall => {
    if (call.phase !== 'postHooking' || !call.held) return call;
    const { held, ...rest } = call;
    return { ...rest, phase: 'settled', ...held };
  });
}
