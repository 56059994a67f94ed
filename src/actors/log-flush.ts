import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask, reportingFailure } from './from-task.ts';

export type LogFlushDeps = {
  /** Resolves once everything appended to the agent's log so far is in the store. */
  flush: () => Promise<void>;
  /** Told about a flush that failed. */
  onError: (error: unknown) => void;
};

/**
 * The flush barrier as an actor: sends `log.flushed` once everything appended so far is in the store.
 * A store failure is reported through `onError` (the host sees it and pending runs reject); the barrier
 * still opens so that cancel and dispose can finish.
 */
export function createLogFlushActor(flushOf: DependenciesOf<LogFlushDeps>) {
  return fromTask(
    ({ agentKey }: AgentKeyed) => {
      const { flush, onError } = flushOf(agentKey);
      return reportingFailure(flush, onError);
    },
    () => ({ type: 'log.flushed' }) as const,
  );
}
