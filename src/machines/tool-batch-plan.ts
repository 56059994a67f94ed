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
