// The data of the events that link the agents of a tree: a child started (`agent.spawned`), a supervised
// child restarted (`agent.restarted` in its parent's log, `session.restarted` in its own), and the shapes
// they carry (a typed run's output, a supervision policy, what mail is). Apart from types.ts so the log's
// vocabulary stays one file a reader can hold.
import type { OutputFormat } from '../providers/types.ts';

/** What one agent's mail to another is: a message, or a background child's final result. */
export type MailKind = 'message' | 'result';

/**
 * What a typed run (`agent.run(prompt, { output })`) asks of the turn that answers it: a final answer that
 * is JSON matching `schema` (a JSON Schema of an object, as the model is shown it), and how many times a
 * final answer that does not may be fed back to the model before the turn ends `invalid_output`.
 */
export type OutputSpec = OutputFormat & { maxRetries: number };

/**
 * How a background child or a job task is supervised, as its log records it (the host's
 * `SupervisionPolicy` with its defaults filled in; `restart: 'never'` is recorded as nothing): a turn that
 * fails is continued from the log after `backoffMs` (doubled at each restart), at most `maxRestarts` times.
 */
export type SupervisionSpec = { restart: 'on-failure'; maxRestarts: number; backoffMs: number };

/**
 * Why a supervised agent was restarted: its turn ended `model_error` (the provider's own retries spent), or
 * its run broke off without a turn's end (`crashed`: its actor failed, or its log stopped writing).
 */
export type RestartReason = 'model_error' | 'crashed';

/**
 * A child agent was started for call `callId`: by the `task` tool (it ends with the call), or in the
 * background by `spawn_agent` (`background: true`; `wait: false` when the turn need not hear from it;
 * `output` when its agent type makes its run typed).
 */
export type AgentSpawnedData = {
  childSessionId: string;
  callId: string;
  background?: boolean;
  wait?: boolean;
  output?: OutputSpec;
  /** The child is supervised: it is restarted on failure (see `SupervisionSpec`). */
  supervision?: SupervisionSpec;
};

/**
 * A supervised background child (`childSessionId`) failed and is restarted, for the `attempt`-th time,
 * after `backoffMs`: written when the restart is decided, before the wait. The child's own log has
 * `session.restarted` with the same `attempt` once it goes on. Counting these gives a resumed parent the
 * restarts already spent.
 */
export type AgentRestartedData = {
  childSessionId: string;
  attempt: number;
  reason: RestartReason;
  error?: string;
  backoffMs: number;
};

/**
 * This agent was restarted by its supervisor (a background child's parent, or a job) after a failure:
 * what follows continues the work from the log (the failed turn stays as it ended; completed tool calls
 * are not run again). `attempt` counts the restarts of this session.
 */
export type SessionRestartedData = { attempt: number; reason: RestartReason; error?: string };
