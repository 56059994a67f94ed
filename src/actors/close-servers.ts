import type { AgentEvent } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask, reportingFailure } from './from-task.ts';

export type CloseServersDeps = {
  /** Closes the agent's MCP servers and resolves once their processes have exited. */
  close: () => Promise<void>;
  /** Told about a close that failed. */
  onError: (error: unknown) => void;
};

/** The dispose stage that closes the agent's MCP servers. Reports `servers.closed` whatever happens. */
export function createCloseServersActor(closeOf: DependenciesOf<CloseServersDeps>) {
  return fromTask(
    ({ agentKey }: AgentKeyed) => {
      const { close, onError } = closeOf(agentKey);
      return reportingFailure(close, onError);
    },
    (): AgentEvent => ({ type: 'servers.closed' }),
  );
}
