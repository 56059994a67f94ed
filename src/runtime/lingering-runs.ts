import type { Clock } from '../core/clock.ts';

/**
 * Tool runs that outlived their call: reported aborted or timed out after the grace while the tool was
 * still winding down (bash stopping the processes a command left). Dispose waits for them, bounded, so a
 * host that exits right after `dispose()` does not cut that work short.
 */
export class LingeringRuns {
  private readonly runs = new Set<Promise<unknown>>();

  readonly add = (work: Promise<unknown>): void => {
    if (this.runs.has(work)) return;
    this.runs.add(work);
    const remove = () => {
      this.runs.delete(work);
    };
    work.then(remove, remove);
  };

  /**
   * Resolves when every lingering run has returned, or after `ms` on the injected clock. The bound does
   * not abort anything: each run was already told to stop through its signal.
   */
  settled(clock: Clock, ms: number): Promise<void> {
    if (this.runs.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const cancel = clock.setTimer(resolve, ms);
      void Promise.allSettled([...this.runs]).then(() => {
        cancel();
        resolve();
      });
    });
  }
}
