// One task that may be started more than once — by a queue that retries it, or hands a stalled one to
// another worker — and still runs once: its session id is the task's id, so a later start finds what an
// earlier one wrote and continues it (repair, then go on) instead of starting over.
import type { Clock } from '../../core/clock.ts';
import { ConfigError } from '../../errors/config-error.ts';
import { LogFormatError } from '../../errors/log-format-error.ts';
import { addUsage, emptyUsage, type Usage } from '../../providers/types.ts';
import { pendingInbox } from '../../session/repair.ts';
import { isEvent, type LogEvent, type SessionStore, type StopReason } from '../../session/types.ts';
import type { Agent } from '../agent-handle.ts';
import type { CreateAgentOptions } from '../options.ts';
import { type DeniedCall, type RunError, turnResult } from '../turn-result.ts';
import { type DurableSupervision, runSupervisedStart, workerStopped } from './supervised-durable.ts';

/**
 * What a durable task is: its id (the session id), its prompt, optional instructions, and the W3C
 * traceparent of the job span its agent's spans continue (docs/telemetry.md).
 */
export type DurableTask = { id: string; prompt: string; instructions?: string; traceParent?: string };

/**
 * How the task ended: the stop reason, text, `error` and `denied` calls of its last turn (as `RunResult`
 * has them), and the usage of all its turns (a continued task paid for the interrupted ones too).
 * `resumed`: a session of this task already existed.
 */
export type DurableTaskResult = {
  reason: StopReason;
  text: string;
  usage: Usage;
  error?: RunError;
  denied: DeniedCall[];
  resumed: boolean;
  /** How many times its supervision restarted it, across every start (absent: none). */
  restarts?: number;
};

/** What running a durable task needs from an agent system. */
export type DurableTaskHost = {
  readonly store: SessionStore;
  readonly clock: Clock;
  createAgent(options?: CreateAgentOptions): Promise<Agent>;
  resumeAgent(sessionId: string, options?: Omit<CreateAgentOptions, 'id'>): Promise<Agent>;
};

export type DurableTaskOptions = {
  /** Aborting it cancels the task's agent (the task ends `canceled`). */
  signal?: AbortSignal;
  /** Told once the task's agent is live, before its turn runs. Contract: must not throw. */
  onStarted?: (info: { sessionId: string; resumed: boolean }) => void;
  /**
   * How long to wait while another live agent still holds the session — a worker whose job was declared
   * stalled may still be finishing it (default 30 s). Then the start fails with that `ConfigError`.
   */
  lockWaitMs?: number;
  /**
   * Restarts the task when it fails, within its policy's budget (see `DurableSupervision`): a turn that
   * ends `model_error`, and a start that finds the task interrupted (its last worker died) or failed.
   * Without it a failure is the task's result, and an interrupted task is continued however often.
   */
  supervision?: DurableSupervision;
};

/** The message that continues a task whose last turn a crash interrupted. */
export const continueMessage =
  'The process running this task stopped before the task was finished; your last turn was interrupted. ' +
  'Continue the task from where it stopped. Check the results above before repeating anything: a call ' +
  'whose outcome is unknown may have run.';

/**
 * Runs `task` to its end on `host`, exactly once across however many starts: a first start creates the
 * session and runs the prompt; a later one resumes the session and, depending on where the log ends,
 * returns the result it already holds, waits for the turn it continues, or continues an interrupted turn
 * with `continueMessage`. The agent is disposed (and its lock released) before this resolves.
 */
export async function runDurableTask(
  host: DurableTaskHost,
  task: DurableTask,
  options: DurableTaskOptions = {},
): Promise<DurableTaskResult> {
  let { agent, resumed } = await takeTask(host, task, options.lockWaitMs ?? 30_000);
  let stopSupervision: (() => void) | undefined;
  const cancel = () => (stopSupervision ? stopSupervision() : agent.cancel('user'));
  try {
    if (options.signal?.aborted) cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    options.onStarted?.({ sessionId: task.id, resumed });
    // A resumed agent with queued input, or a turn it continues, is running now: let that finish first.
    await agent.whenIdle();
    const before = taskState(agent.log());
    let restarts: { restarts?: number } = {};
    if (options.supervision && !options.signal?.aborted) {
      const stand = { kind: before.kind, ...(before.kind === 'done' ? outcomeOf(before.result) : {}) };
      const prompt = task.prompt;
      // A restart that resumes the agent continues the task's trace too, as its first start did.
      const given = {
        ...(task.instructions !== undefined ? { instructions: task.instructions } : {}),
        ...(task.traceParent !== undefined ? { traceParent: task.traceParent } : {}),
      };
      const end = await runSupervisedStart(agent, { prompt, stand, options: given }, options.supervision, {
        onStop: (stop) => {
          stopSupervision = stop;
          if (options.signal?.aborted) stop();
        },
      });
      agent = end.agent;
      if (end.restarts > 0) restarts = { restarts: end.restarts };
      if (end.escalated?.reason === 'crashed') {
        const spent = taskState(agent.log());
        if (spent.kind !== 'done') return spentResult(spent.usage, end.restarts, resumed);
      }
    } else if (before.kind !== 'done' && !options.signal?.aborted)
      await agent.run(before.kind === 'new' ? task.prompt : continueMessage);
    const after = taskState(agent.log());
    if (after.kind === 'done') return { ...after.result, resumed, ...restarts };
    // Only a cancel before anything ran gets here: nothing of the task ran in this start.
    return { reason: 'canceled', text: '', usage: after.usage, denied: [], resumed, ...restarts };
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    await agent.dispose();
  }
}

/** A done task's stop reason and error message, as its supervision reads them. */
function outcomeOf(result: { reason: StopReason; error?: RunError }): { reason: string; error?: string } {
  return result.error ? { reason: result.reason, error: result.error.message } : { reason: result.reason };
}

/** An interrupted task whose restarts are spent: its workers died as often as its policy allowed. */
function spentResult(usage: Usage, restarts: number, resumed: boolean): DurableTaskResult {
  const message = `${workerStopped}, and its ${restarts} restart(s) are spent`;
  const error: RunError = { kind: 'interrupted', message, retryable: true };
  return { reason: 'interrupted', text: '', usage, error, denied: [], resumed, restarts };
}

type TaskState =
  | { kind: 'new'; usage: Usage }
  | { kind: 'interrupted'; usage: Usage }
  | { kind: 'done'; usage: Usage; result: Omit<DurableTaskResult, 'resumed'> };

/** Where a task's log stands once its agent is idle. */
export function taskState(events: readonly LogEvent[]): TaskState {
  let usage = emptyUsage;
  let last: (LogEvent & { type: 'turn.end' }) | undefined;
  for (const event of events) {
    if (!isEvent(event, 'turn.end')) continue;
    usage = addUsage(usage, event.data.usage);
    last = event;
  }
  const asked = events.some((event) => isEvent(event, 'inbox.queued'));
  if (!last) return { kind: asked && pendingInbox(events).length > 0 ? 'interrupted' : 'new', usage };
  if (last.data.reason === 'interrupted') return { kind: 'interrupted', usage };
  const { reason, text, error, denied } = turnResult(events, last);
  return { kind: 'done', usage, result: { reason, text, usage, ...(error ? { error } : {}), denied } };
}

/** A live agent on the task's session: a new one, or the stored session resumed. */
async function takeTask(
  host: DurableTaskHost,
  task: DurableTask,
  lockWaitMs: number,
): Promise<{ agent: Agent; resumed: boolean }> {
  const options = {
    ...(task.instructions !== undefined ? { instructions: task.instructions } : {}),
    ...(task.traceParent !== undefined ? { traceParent: task.traceParent } : {}),
  };
  const deadline = host.clock.now() + lockWaitMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    try {
      if (!(await host.store.exists(task.id)))
        return { agent: await host.createAgent({ id: task.id, ...options }), resumed: false };
      return { agent: await host.resumeAgent(task.id, options), resumed: true };
    } catch (error) {
      if (isEmptySession(error))
        await dropEmptySession(host.store, task.id).catch((dropError: unknown) => {
          // Someone holds it: a start that is creating it right now. Wait for that like for any holder.
          if (!isHeld(dropError)) throw dropError;
        });
      else if (!isHeld(error) || host.clock.now() >= deadline) throw error;
    }
    await new Promise<void>((resolve) => host.clock.setTimer(resolve, pause));
  }
}

/** Another live agent has the session (or, racing us, just created it): worth waiting for. */
function isHeld(error: unknown): boolean {
  return (
    ConfigError.isInstance(error) &&
    /is held by a live agent|already has a live agent|already exists/.test(error.message)
  );
}

function isEmptySession(error: unknown): boolean {
  return LogFormatError.isInstance(error) && /the log is empty/.test(error.message);
}

/**
 * A session created by a start that stopped before `session.start` was written holds nothing of the
 * task: remove it (under its lock, so never while a live agent is creating it) and start afresh.
 */
async function dropEmptySession(store: SessionStore, sessionId: string): Promise<void> {
  const lock = await store.lock?.(sessionId);
  try {
    if ((await store.load(sessionId)).events.length === 0) await store.remove(sessionId);
  } finally {
    await lock?.release();
  }
}
