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
  phase: 'pending' | 'awaitingApproval' | 'running' | 'settled';
  outcome?: ToolOutcome;
  content?: string;
  error?: string;
  committed: boolean;
};

/**
 * Which pending calls may begin now. Calls begin in model order: consecutive concurrency-safe calls run
 * side by side up to `maxParallel`; a barrier begins only when everything before it has settled, and
 * nothing after a barrier begins until the barrier settles.
 */
export function callsToBegin(calls: readonly BatchCall[], maxParallel: number): number[] {
  const begin: number[] = [];
  let active = calls.filter((call) => call.phase === 'running' || call.phase === 'awaitingApproval').length;
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

type Settlement = { outcome: ToolOutcome; content: string; error?: string };

/** Records the one result of a call; a call that already settled keeps its first result. */
export function settleCall(calls: readonly BatchCall[], callId: string, result: Settlement): BatchCall[] {
  return calls.map((call) =>
    call.callId === callId && call.phase !== 'settled' ? { ...call, phase: 'settled', ...result } : call,
  );
}

/** The check decides each call: its validated input, whether it is safe, and a result for a rejected one. */
export function applyChecks(
  calls: readonly BatchCall[],
  checks: readonly {
    callId: string;
    input: unknown;
    safe: boolean;
    verdict: BatchCall['verdict'];
    outcome?: 'error' | 'denied';
    content?: string;
  }[],
): BatchCall[] {
  const byId = new Map(checks.map((check) => [check.callId, check]));
  return calls.map((call): BatchCall => {
    const check = byId.get(call.callId);
    if (!check)
      return { ...call, phase: 'settled', outcome: 'error', content: 'internal: the call was not checked' };
    const checked = { ...call, input: check.input, safe: check.safe, verdict: check.verdict };
    if (check.verdict !== 'reject') return checked;
    return { ...checked, phase: 'settled', outcome: check.outcome ?? 'error', content: check.content ?? '' };
  });
}

/** On cancel: calls that never began settle `aborted_before_start`, calls waiting for approval `aborted`. */
export function settleUnbegun(calls: readonly BatchCall[]): BatchCall[] {
  return calls.map((call): BatchCall => {
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
