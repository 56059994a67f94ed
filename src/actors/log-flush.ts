import { fromCallback } from 'xstate';
import type { SessionLog } from '../session/session-log.ts';
import type { Resolve } from './resolve.ts';

/**
 * The flush barrier as an actor: sends `log.flushed` once everything appended so far is in the store.
 * A store failure is reported through `onError` (the host sees it and pending runs reject); the barrier
 * still opens so that cancel and dispose can finish.
 */
export function createLogFlushActor(depsOf: Resolve<{ log: SessionLog; onError: (error: unknown) => void }>) {
  return fromCallback<{ type: 'noop' }, Record<string, never>>(({ sendBack, self }) => {
    const { log, onError } = depsOf(self);
    let live = true;
    log.flush().then(
      () => {
        if (live) sendBack({ type: 'log.flushed' });
      },
      (error: unknown) => {
        onError(error);
        if (live) sendBack({ type: 'log.flushed' });
      },
    );
    return () => {
      live = false;
    };
  });
}
