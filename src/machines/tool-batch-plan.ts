import { extended } from '../core/extended.ts';
import type { ToolCallRequest } from '../providers/types.ts';
import { unknownOutcomeContent } from '../session/repair.ts';
import type { ResumeCall } from '../session/resume-point.ts';
import type { ToolOutcome } from '../session/types.ts';

/** A tool call as the batch tracks it, in model order. */
export type BatchCall = {
  callId: string;
  name: string;
  input: unknown;
  /** May run beside its neighbours. Everything else (writes, exec, unknown, asks) is a barrier. */
  safe: boolean;
  /** What the check decided before anything runs. */
  verdict: 'run' | 'ask' | 'reject';
  /** `postHooking`: the tool finished; its result (`held`) waits for the `postTool` hooks. */
  phase: 'pending' | 'awaitingApproval' | 'running' | 'postHooking' | 'settled';
  held?: { outcome: ToolOutcome; content: string; error?: string };
  outcome?: ToolOutcome;
  content?: string;
  error?: string;
  committed: boolean;
  /** Resumed: the decision the log already holds about the call (it is not logged again). */
  decision?: ResumeCall['decision'];
  /** Resumed: a call whose subagent waits too; it runs again once checked, without a second `tool.started`. */
  rejoin?: boolean;
  /** What the `preTool` hooks added for the model (`additionalContext`): appended to the result. */
  context?: string;
};

/** The calls of a new batch, in model order, before the check has said anything about them. */
export function newCalls(calls: readonly ToolCallRequest[]): BatchCall[] {
  return calls.map((call) => ({
    callId: call.id,
    name: call.name,
    input: call.input,
    safe: false,
    verdict: 'run',
    phase: 'pending',
    committed: false,
  }));
}

/**
 * Which pending calls may begin now. Calls begin in model order: consecutive concurrency-safe calls run
 * side by side up to `maxParallel`; a barrier begins only when everything before it has settled, and
 * nothing after a barrier begins until the barrier settles.
 */
export function callsToBegin(calls: readonly BatchCall[], maxParallel: number): number[] {
  const begin: number[] = [];
  let active = calls.filter(
    (call) => call.phase === 'running' || call.phase === 'awaitingApproval' || call.phase === 'postHooking',
  ).length;
  let earlierUnsettled = false;
  for (const [index, call] of calls.entries()) {
    if (call.phase === 'settled') continue;
    const barrier = !call.safe || call.verdict !== 'run';
    if (call.phase !== 'pending') {
      if (barrier) break;
      earlierUnsettled = true;
      continue;
    }
    if (barrier) {
      if (!earlierUnsettled) begin.push(index);
      break;
    }
    if (active >= maxParallel) break;
    begin.push(index);
    active++;
    earlierUnsettled = true;
  }
  return begin;
}

/** Indexes of settled calls that can be committed now: the settled run right after the last commit. */
export function callsToCommit(calls: readonly BatchCall[]): number[] {
  const commit: number[] = [];
  for (const [index, call] of calls.entries()) {
    if (call.committed) continue;
    if (call.phase !== 'settled') break;
    commit.push(index);
  }
  return commit;
}

export function allCommitted(calls: readonly BatchCall[]): boolean {
  return calls.every((call) => call.committed);
}

/** The calls with one call moved to `phase`. */
export function withPhase(
  calls: readonly BatchCall[],
  callId: string,
  phase: BatchCall['phase'],
): BatchCall[] {
  return calls.map((call) => (call.callId === callId ? { ...call, phase } : call));
}

type Settlement = { outcome: ToolOutcome; content: string; error?: string };

/** Records the one result of a call; a call that already settled keeps its first result. */
export function settleCall(calls: readonly BatchCall[], callId: string, result: Settlement): BatchCall[] {
  return calls.map((call) =>
    // Not `{ ...call, phase, ...result }`: V8's slow path for fields added after a spread (~7 µs a call).
    call.callId === callId && call.phase !== 'settled'
      ? extended(call, { phase: 'settled', ...result })
      : call,
  );
}

/** What the check actor says about one call (see `CallCheck`). */
type Check = {
  callId: string;
  input: unknown;
  safe: boolean;
  verdict: BatchCall['verdict'];
  outcome?: 'error' | 'denied';
  content?: string;
};

/** The check decides each call: its validated input, whether it is safe, and a result for a rejected one. */
export function applyChecks(calls: readonly BatchCall[], checks: readonly Check[]): BatchCall[] {
  const byId = new Map(checks.map((check) => [check.callId, check]));
  return calls.map((call) => checkedCall(call, byId.get(call.callId)));
}

function checkedCall(call: BatchCall, check: Check | undefined): BatchCall {
  if (!check)
    return { ...call, phase: 'settled', outcome: 'error', content: 'internal: the call was not checked' };
  const checked = { ...call, input: check.input, safe: check.safe, verdict: check.verdict };
  if (check.verdict !== 'reject') return checked;
  return { ...checked, phase: 'settled', outcome: check.outcome ?? 'error', content: check.content ?? '' };
}

/**
 * The calls of a resumed batch, as the log left them: a result in the log is committed already, a call
 * whose outcome was lost settles `unknown` (committed in model order like any result), and the rest wait
 * for the check, as a new batch's calls do.
 */
export function resumedCalls(calls: readonly ResumeCall[]): BatchCall[] {
  return calls.map((call): BatchCall => {
    const { callId, name, input, state, decision } = call;
    const base = { callId, name, input, safe: false, verdict: 'run' as const };
    if (state === 'done')
      return { ...base, phase: 'settled', outcome: call.outcome ?? 'ok', committed: true };
    if (state === 'lost') {
      return {
        ...base,
        phase: 'settled',
        outcome: 'unknown',
        content: unknownOutcomeContent,
        committed: false,
      };
    }
    return {
      ...base,
      phase: 'pending',
      committed: false,
      ...(decision ? { decision } : {}),
      ...(state === 'rejoin' ? { rejoin: true } : {}),
    };
  });
}

/**
 * The check of a resumed batch decides the calls still pending. A decision the log holds stands: a call a
 * person already allowed runs (alone) instead of being asked again, one they denied is denied. A call
 * whose subagent waits runs again at once (`running`) unless the check now rejects it.
 */
export function applyResumeChecks(calls: readonly BatchCall[], checks: readonly Check[]): BatchCall[] {
  const byId = new Map(checks.map((check) => [check.callId, check]));
  return calls.map((call): BatchCall => {
    if (call.phase !== 'pending') return call;
    const check = byId.get(call.callId);
    const answered = check?.verdict === 'ask' ? call.decision : undefined;
    if (answered?.outcome === 'deny') {
      const content = `Permission denied: ${answered.reason ?? 'denied'}`;
      return { ...call, input: check!.input, phase: 'settled', outcome: 'denied', content };
    }
    const checked = checkedCall(call, answered ? { ...check!, verdict: 'run', safe: false } : check);
    return call.rejoin && checked.phase === 'pending' ? { ...checked, phase: 'running' } : checked;
  });
}

/** On cancel: calls that never began settle `aborted_before_start`, calls waiting for approval `aborted`. */
export function settleUnbegun(calls: readonly BatchCall[]): BatchCall[] {
  return calls.map((call): BatchCall => {
    if (call.phase === 'pending' && call.rejoin) {
      return {
        ...call,
        phase: 'settled',
        outcome: 'aborted',
        content: 'Canceled while its subagent waited.',
      };
    }
    if (call.phase === 'pending') {
      return {
        ...call,
        phase: 'settled',
        outcome: 'aborted_before_start',
        content: 'Canceled before it started.',
      };
    }
    if (call.phase === 'awaitingApproval') {
      return {
        ...call,
        phase: 'settled',
        outcome: 'aborted',
        content: 'Canceled while waiting for approval.',
      };
    }
    return call;
  });
}
