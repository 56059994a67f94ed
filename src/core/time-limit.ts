/** A signal that aborts when the caller's does or when a time limit passes, whichever comes first. */
export type TimeLimit = {
  readonly signal: AbortSignal;
  /** The limit passed (rather than the caller's signal aborting). */
  readonly timedOut: boolean;
  /** Clears the timer and the listener on the caller's signal; call it once the work is over. */
  release(): void;
};

/**
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])`, minus what that costs a long-lived process: a
 * timeout signal keeps its timer, and everything the combined signal's listeners reach, alive until the
 * limit passes, even when the work ended long before. Released at the end of the work, this keeps nothing.
 * The limit is real time, like a tool's own timeout (the injected clock is for the runtime and the log);
 * the timer does not keep the process alive by itself, as `AbortSignal.timeout`'s does not.
 */
export function timeLimit(outer: AbortSignal, ms: number): TimeLimit {
  const controller = new AbortController();
  let timedOut = false;
  const onOuter = () => controller.abort(outer.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`the time limit of ${ms} ms passed`, 'TimeoutError'));
  }, ms);
  timer.unref();
  if (outer.aborted) onOuter();
  else outer.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    release() {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuter);
    },
  };
}
