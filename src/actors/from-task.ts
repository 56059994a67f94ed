import { fromCallback } from 'xstate';

/** How a task ended: with its value, or with what it threw or rejected with. */
export type TaskResult<Value> = { ok: true; value: Value } | { ok: false; error: unknown };

/** The signal of a task that cannot be aborted: one for all of them, so a task costs no controller. */
const neverAborted = new AbortController().signal;

/**
 * Actor logic for one piece of work whose outcome a chart learns as a domain event (`setup.done`,
 * `log.flushed`, `hook.veto`…). XState's `fromPromise` would report `xstate.done.actor.*` instead, which
 * the pure charts do not speak.
 *
 * `run` starts on the next microtask, inside the promise chain: a synchronous throw is a failure like a
 * rejection, and a host callback never runs while XState is still spawning the actor. `toEvent` turns the
 * result into the one event sent to the parent, or `undefined` when the answer comes another way (a
 * manual approval). A stopped actor sends nothing, so a chart never hears about work it abandoned.
 * Contract: `toEvent` only maps data and does not throw; work that can throw (reading a host's answer)
 * belongs in `run`.
 *
 * With `abortOn`, the task can be told to stop waiting: the signal `run` gets aborts when the actor
 * receives an event of that type (the task still answers, with whatever it made of the abort) or is
 * stopped before it answered. Without it the signal never aborts. `abortOn` may also be decided per
 * input (`undefined`: this task has nothing to stop), so a task with nothing to abort costs no
 * controller: Node 20's AbortSignal is ~1.3 kB that outlives the young generation.
 *
 * @example
 * const flush = fromTask(({ agentKey }: AgentKeyed) => logOf(agentKey).flush(), () => ({ type: 'log.flushed' }));
 */
export function fromTask<Input, Value, Event extends { type: string }, Abort extends string = never>(
  run: (input: Input, signal: AbortSignal) => Value | PromiseLike<Value>,
  toEvent: (result: TaskResult<Value>, input: Input) => Event | undefined,
  options: { abortOn?: Abort | ((input: Input) => Abort | undefined) } = {},
) {
  const { abortOn } = options;
  return fromCallback<{ type: 'noop' } | { type: Abort }, Input>(({ input, sendBack, receive }) => {
    const abortType = typeof abortOn === 'function' ? abortOn(input) : abortOn;
    const controller = abortType === undefined ? undefined : new AbortController();
    if (controller) receive((event) => event.type === abortType && controller.abort());
    let live = true;
    let running = true;
    const answer = (result: TaskResult<Value>) => {
      running = false;
      if (!live) return;
      const event = toEvent(result, input);
      if (event !== undefined) sendBack(event);
    };
    Promise.resolve()
      .then(() => run(input, controller?.signal ?? neverAborted))
      .then(
        (value) => answer({ ok: true, value }),
        (error: unknown) => answer({ ok: false, error }),
      );
    return () => {
      live = false;
      // A task that has answered has nothing left to stop, and an abort costs a DOMException (~9 % of a
      // createAgent + dispose, one per setup stage).
      if (running) controller?.abort();
    };
  });
}

/**
 * Runs `work` for a task whose chart goes on whatever happens (an undo, a flush, a revoke): a failure is
 * told to `onError`, which reports it to the host, instead of failing the task.
 */
export async function reportingFailure(
  work: () => Promise<void>,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    onError(error);
  }
}
