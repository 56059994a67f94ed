import type { AgentEvent } from '../machines/agent.ts';
import type { AgentKeyed } from '../machines/agent-key.ts';
import type { DependenciesOf } from './dependencies.ts';
import { fromTask, reportingFailure } from './from-task.ts';

export type FinishWorktreeDeps = {
  /** Commits what the agent left in its worktree, then removes it (unchanged) or keeps it with its branch. */
  finish: () => Promise<void>;
  /** Told about a finish that failed (the worktree and branch are then left as they are). */
  onError: (error: unknown) => void;
};

/** The dispose stage that finishes an isolated agent's worktree. Reports `worktree.finished` whatever happens. */
export function createFinishWorktreeActor(finishOf: DependenciesOf<FinishWorktreeDeps>) {
  return fromTask(
    ({ agentKey }: AgentKeyed) => {
      const { finish, onError } = finishOf(agentKey);
      return reportingFailure(finish, onError);
    },
    (): AgentEvent => ({ type: 'worktree.finished' }),
  );
}
