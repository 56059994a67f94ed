import type { AgentEvent } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask, reportingFailure } from './from-task.ts';

export type ReleaseChildrenDeps = {
  /**
   * Cancels (cause `parent`) and disposes every live background child of the agent, each with its own
   * descendants first, and resolves once all of them are disposed.
   */
  release: () => Promise<void>;
  /** Told about a child that could not be released. */
  onError: (error: unknown) => void;
};

/**
 * Stops the agent's background children: on a cancel, and in dispose before the session ends. Reports
 * `children.released` whatever happens, so a cancel or a dispose always goes on.
 */
export function createReleaseChildrenActor(releaseOf: DependenciesOf<ReleaseChildrenDeps>) {
  return fromTask(
    ({ agentKey }: AgentKeyed) => {
      const { release, onError } = releaseOf(agentKey);
      return reportingFailure(release, onError);
    },
    (): AgentEvent => ({ type: 'children.released' }),
  );
}
