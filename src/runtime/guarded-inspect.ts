import type { InspectionEvent, Observer } from 'xstate';
import { messageOf } from '../errors/describe-value.ts';

/** The part of an XState actor system that `inspectGuarded` needs. */
export type Inspectable = {
  inspect(observer: (event: InspectionEvent) => void): { unsubscribe(): void };
};

/**
 * Subscribes a host's observer to every inspection event of `system`. The observer is called inside the
 * actors' work, so it is kept from affecting them: one that throws is unsubscribed, and its error is
 * reported as a process warning (it never reaches an actor). Returns an unsubscribe function.
 */
export function inspectGuarded(
  system: Inspectable,
  observer: Observer<InspectionEvent> | ((event: InspectionEvent) => void),
): () => void {
  const next = typeof observer === 'function' ? observer : observer.next!.bind(observer);
  let subscription: { unsubscribe(): void } | undefined;
  let broken = false;
  subscription = system.inspect((event) => {
    if (broken) return;
    try {
      next(event);
    } catch (error) {
      broken = true;
      subscription?.unsubscribe();
      process.emitWarning(
        `agentchart: an inspect() observer threw and was unsubscribed: ${messageOf(error)}`,
      );
    }
  });
  return () => subscription?.unsubscribe();
}
