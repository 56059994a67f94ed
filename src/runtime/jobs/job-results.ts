// What a job task's result is: from its agent's run, from its supervision's end, or a task that ended
// without running (cancelled, a failed dependency, an agent that could not be created).
import { messageOf } from '../../errors/describe-value.ts';
import { emptyUsage } from '../../providers/types.ts';
import type { Agent, RunResult } from '../agent-handle.ts';
import type { JobTaskResult } from './job-types.ts';
import type { SupervisedEnd } from './supervised-task.ts';

/** A task that ended without a run of its own (or whose run broke off). */
export function ended(
  index: number,
  sessionId: string | undefined,
  reason: JobTaskResult['reason'],
  error?: string,
): JobTaskResult {
  const why = error !== undefined ? { error } : {};
  return { index, sessionId, reason, text: '', usage: emptyUsage, ...why, denied: [] };
}

/** A supervised task's result: its last turn's, or why its run broke off; with the restarts it took. */
export function supervisedResult(index: number, end: SupervisedEnd, canceled: boolean): JobTaskResult {
  const restarts = end.restarts > 0 ? { restarts: end.restarts } : {};
  if (end.state === 'stopped' || (canceled && !('result' in end.outcome)))
    return { ...ended(index, end.agent.id, 'canceled'), ...restarts };
  if (!('result' in end.outcome))
    return { ...ended(index, end.agent.id, 'failed', messageOf(end.outcome.error)), ...restarts };
  return { ...resultOf(index, end.agent, end.outcome.result), ...restarts };
}

/** The result of a task whose agent's run ended. */
export function resultOf(index: number, agent: Agent, run: RunResult): JobTaskResult {
  const { reason, text, usage, error, denied, output } = run;
  const why = error !== undefined ? { error: error.message } : {};
  const typed = output !== undefined ? { output } : {};
  return { index, sessionId: agent.id, reason, text, usage, ...why, denied, ...typed };
}
