import { fromCallback } from 'xstate';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';

/**
 * The flush barrier as an actor: sends `log.flushed` once everything appended so far is in the store.
 * A store failure is reported through `onError` (the host sees it and pending runs reject); the barrier
 * still opens so that cancel and dispose can finish.
 */
export function createLogFlushActor(
  depsOf: DependenciesOf<{ flush: () => Promise<void>; onError: (error: unknown) => void }>,
) {
  return fromCallback<{ type: 'noop' }, AgentKeyed>(({ input, sendBack }) => {
    const { flush, onError } = depsOf(input.agentKey);
    let live = true;
    flush().then(
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
