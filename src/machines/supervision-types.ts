import type { RestartReason, StopReason, SupervisionSpec } from '../session/types.ts';

/** A failure the supervisor heard of: why, and the error's message when there is one. */
export type SupervisedFailure = { reason: RestartReason; error?: string };

/**
 * What a supervision starts with: the child (or job task) it watches, its policy (`undefined`: never
 * restart), the restarts its log says were already spent, and, on a resume that found one decided but not
 * carried out (`agent.restarted` in the parent's log, no `session.restarted` in the child's), that restart
 * and what is left of its wait.
 */
export type SupervisionInput = {
  childId: string;
  policy: SupervisionSpec | undefined;
  restarts: number;
  pending?: SupervisedFailure & { delayMs: number };
};

export type SupervisionContext = {
  childId: string;
  policy: SupervisionSpec | undefined;
  /** Restarts decided so far (the one under way included). */
  restarts: number;
  /** The last failure: what a restart answers, or what an escalation reports. */
  failure: SupervisedFailure | undefined;
  /** How long `backingOff` waits. */
  delayMs: number;
};

/**
 * What the supervisor hears. `child.ended`: the child's turn ended (with its stop reason); `child.crashed`:
 * its run broke off without one (its actor failed, its log stopped writing), or a restart could not bring
 * it back; `retry.due`: the backoff's timer; `child.restarted`: the child goes on from its log;
 * `supervision.stop`: its parent stops it (a cancel, `stop_agent`, dispose).
 */
export type SupervisionEvent =
  | { type: 'child.ended'; reason: StopReason; error?: string }
  | { type: 'child.crashed'; error: string }
  | { type: 'retry.due' }
  | { type: 'child.restarted' }
  | { type: 'supervision.stop' };

/**
 * What the runtime is asked to report when a restart is decided: to the parent's log
 * (`agent.restarted`), or a job's progress.
 */
export type RestartReport = SupervisedFailure & { childId: string; attempt: number; backoffMs: number };
