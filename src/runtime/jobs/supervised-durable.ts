// A durable task with a supervision policy — a queued task on a worker. Its restarts are counted in its
// own log (`session.restarted`), so the budget holds across every worker that takes the task up: a start
// that finds the task interrupted (the worker that ran it died, or its attempt failed) or ended
// `model_error` is a restart like one made in process, waited out, logged, and bounded by `maxRestarts`.
import { failureOf, restartDelay } from '../../machines/supervision-policy.ts';
import type { RestartReport, SupervisedFailure, SupervisionInput } from '../../machines/supervision-types.ts';
import { isEvent, type LogEvent, type SupervisionSpec } from '../../session/types.ts';
import type { Agent } from '../agent-handle.ts';
import type { CreateAgentOptions } from '../options.ts';
import { SupervisedTask, type TaskSupervisionHost } from './supervised-task.ts';

/** How a durable task is supervised: its policy, the system's supervision host, and who hears of restarts. */
export type DurableSupervision = {
  policy: SupervisionSpec;
  host: TaskSupervisionHost;
  /** Told of each restart decided (before its wait). Contract: must not throw. */
  onRestart?: (report: RestartReport) => void;
};

/** Why a start found the task interrupted: the process that ran it stopped before its turn ended. */
export const workerStopped = 'the worker running the task stopped before its turn ended';

/** Where the task's log stands, as the supervision reads it. */
export type LogStand = { kind: 'new' | 'interrupted' | 'done'; reason?: string; error?: string };

/** How a supervised start ended: the agent that holds the task now, the restarts spent, an escalation. */
export type SupervisedStart = { agent: Agent; restarts: number; escalated?: SupervisedFailure };

/** The restart a start owes the task: the failure its log ends with, if the policy restarts that. */
export function owedFailure(stand: LogStand): SupervisedFailure | undefined {
  if (stand.kind === 'interrupted') return { reason: 'crashed', error: workerStopped };
  if (stand.kind === 'done' && stand.reason === 'model_error') return failureOf('model_error', stand.error);
  return undefined;
}

/** The restarts the task's log says were made (by any worker). */
export function restartsIn(events: readonly LogEvent[]): number {
  return events.filter((event) => isEvent(event, 'session.restarted')).length;
}

/**
 * Runs the task on `agent` under `supervision`, from where its log stands: a new task runs `prompt`; a
 * failure the log ends with is restarted first (if restarts are left; else it is the task's end, escalated);
 * a task the log says is done is left as it is. `stop` (set once) stops the supervision.
 */
export async function runSupervisedStart(
  agent: Agent,
  task: { prompt: string; stand: LogStand; options: Omit<CreateAgentOptions, 'id'> },
  supervision: DurableSupervision,
  stopper: { onStop(stop: () => void): void },
): Promise<SupervisedStart> {
  const { policy, host, onRestart } = supervision;
  const restarts = restartsIn(agent.log());
  const failure = owedFailure(task.stand);
  if (task.stand.kind === 'done' && !failure) return { agent, restarts };
  if (failure && restarts >= policy.maxRestarts) return { agent, restarts, escalated: failure };
  let from: Pick<SupervisionInput, 'restarts' | 'pending'> = { restarts };
  if (failure) {
    const attempt = restarts + 1;
    const backoffMs = restartDelay(policy, attempt);
    from = { restarts: attempt, pending: { ...failure, delayMs: backoffMs } };
    onRestart?.({ childId: agent.id, attempt, ...failure, backoffMs });
  }
  const supervised = new SupervisedTask(agent, {
    host,
    policy,
    typed: undefined,
    options: task.options,
    report: (report) => onRestart?.(report),
  });
  stopper.onStop(() => {
    supervised.stop();
    supervised.current.cancel('user');
  });
  const end = await supervised.run(task.prompt, from);
  const escalated = end.state === 'escalated' && end.failure ? { escalated: end.failure } : {};
  return { agent: end.agent, restarts: end.restarts, ...escalated };
}
