import type { AgentEvent } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask, reportingFailure } from './from-task.ts';

export type RevokeDeps = {
  /** Unregisters the agent and closes its session. */
  revoke: () => Promise<void>;
  /** Told about a revoke that failed. */
  onError: (error: unknown) => void;
};

/** The last stage of dispose: unregister and close. Reports `revoke.done` whatever happens. */
export function createRevokeActor(revokeOf: DependenciesOf<RevokeDeps>) {
  return fromTask(
    ({ agentKey }: AgentKeyed) => {
      const { revoke, onError } = revokeOf(agentKey);
      return reportingFailure(revoke, onError);
    },
    (): AgentEvent => ({ type: 'revoke.done' }),
  );
}
